//! A run's machine calibrations (the fixed CPU task's time at its start and end), as
//! stored and as reports show them. `conditions::calibrate` takes them.

use serde::{Deserialize, Serialize};

/// When in a run a calibration was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Moment {
    /// At `run-started`, before the sink's ceiling is measured.
    Start,
    /// At `run-finished`, after the last upload.
    End,
}

/// One calibration of a run, as stored (`Record::Machine`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineRecord {
    pub run_id: String,
    pub moment: Moment,
    /// Median time of one round of the fixed task, in milliseconds.
    pub cpu_ms: f64,
    pub recorded_at: String,
}

/// A run's calibrations, as reports show them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Machine {
    /// The fixed task's time at the run's start and end, in ms (None: not recorded,
    /// as in runs stored before calibrations were).
    pub start_cpu_ms: Option<f64>,
    pub end_cpu_ms: Option<f64>,
}

impl Machine {
    pub fn add(&mut self, r: &MachineRecord) {
        match r.moment {
            Moment::Start => self.start_cpu_ms = Some(r.cpu_ms),
            Moment::End => self.end_cpu_ms = Some(r.cpu_ms),
        }
    }

    /// The slower of the two: load at either end of the run counts against it.
    pub fn slowest_ms(&self) -> Option<f64> {
        match (self.start_cpu_ms, self.end_cpu_ms) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.start_cpu_ms.is_none() && self.end_cpu_ms.is_none()
    }
}
