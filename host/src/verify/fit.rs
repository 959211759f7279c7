//! Whether a sample fits its run: an arm of the run's plan, a rep the plan can reach,
//! the plan's size for that arm, each (arm, rep) once, within the run's caps on samples
//! and bytes, and only while the run is open. What does not fit is refused (error 18,
//! `sample-refused`, with the rule as `kind`) and nothing of its message is stored.
//! What does fit is stored with only the fields this host knows: the page's other
//! fields are dropped, its label is the arm's, its error and rejection texts are clipped.

use crate::domain::arm::Arm;
use crate::domain::limits::INPUT;
use crate::domain::plan::Plan;
use crate::domain::sample::Sample;
use crate::platform::untrusted::Clipped;
use std::collections::HashSet;

/// What a run has taken so far, kept by the session from `run-started` on: the plan it
/// must fit, each (arm, rep) stored, the bytes stored, and whether it ended (a run that
/// ended stays here as a tombstone, so it takes nothing more).
#[derive(Debug, Clone)]
pub struct RunBook {
    arms: Vec<Arm>,
    plan: Plan,
    taken: HashSet<(Arm, u32)>,
    bytes: u64,
    ended: bool,
}

/// Why a sample was refused: one variant per rule; `kind()` travels in the reply. Its
/// words are export's (`export/misfit.rs`).
#[derive(Debug, Clone, PartialEq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Misfit {
    RunEnded,
    TooManyInMessage {
        count: usize,
        max: usize,
    },
    ArmNotPlanned {
        label: String,
    },
    RepOutOfRange {
        rep: u32,
        max: u64,
    },
    SizeNotPlanned {
        label: String,
        bytes: u64,
        planned: u64,
    },
    Repeated {
        label: String,
        rep: u32,
    },
    TooLarge {
        bytes: usize,
        max: usize,
    },
    RunFull {
        bytes: u64,
        cap: u64,
    },
}

impl std::error::Error for Misfit {}

impl Misfit {
    /// The rule's name in kebab-case, e.g. "arm-not-planned".
    pub fn kind(&self) -> &'static str {
        self.into()
    }
}

impl RunBook {
    pub fn new(plan: Plan) -> RunBook {
        RunBook {
            arms: plan.measured_arms(),
            plan,
            taken: HashSet::new(),
            bytes: 0,
            ended: false,
        }
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The run ended: from now on it takes nothing.
    pub fn end(&mut self) {
        self.ended = true;
    }

    /// The bytes this run may store: every sample its plan can make, each at most
    /// `INPUT.sample_bytes`.
    pub fn byte_cap(&self) -> u64 {
        self.plan.measured_uploads() * INPUT.sample_bytes as u64
    }

    /// Checks a message's samples, as the page sent them, before anything is looked up.
    pub fn check_claims(&self, samples: &[Sample]) -> Result<(), Misfit> {
        if self.ended {
            return Err(Misfit::RunEnded);
        }
        if samples.len() > INPUT.samples_per_message {
            return Err(Misfit::TooManyInMessage {
                count: samples.len(),
                max: INPUT.samples_per_message,
            });
        }
        let mut seen = HashSet::new();
        for s in samples {
            let arm = self.planned(s)?;
            if self.taken.contains(&(arm.clone(), s.rep)) || !seen.insert((arm.clone(), s.rep)) {
                return Err(Misfit::Repeated {
                    label: arm.label(),
                    rep: s.rep,
                });
            }
        }
        Ok(())
    }

    /// The plan's arm the sample names, at a rep and size the plan has.
    fn planned<'a>(&'a self, s: &Sample) -> Result<&'a Arm, Misfit> {
        let named = s.arm();
        let Some(arm) = self.arms.iter().find(|a| **a == named) else {
            return Err(Misfit::ArmNotPlanned {
                label: Clipped(&named.label()).to_string(),
            });
        };
        if u64::from(s.rep) >= self.plan.max_reps() {
            return Err(Misfit::RepOutOfRange {
                rep: s.rep,
                max: self.plan.max_reps(),
            });
        }
        let planned = self.plan.bytes_of(arm);
        if s.bytes_sent != planned {
            return Err(Misfit::SizeNotPlanned {
                label: arm.label(),
                bytes: s.bytes_sent,
                planned,
            });
        }
        Ok(arm)
    }

    /// The verified samples as they are stored, with the bytes of their lines: each
    /// still of its plan's size (a download's sent side is the sink's record), each
    /// line within `INPUT.sample_bytes`, and the run within its byte cap.
    pub fn check_stored(&self, samples: &[Sample], lines: &[usize]) -> Result<(), Misfit> {
        for s in samples {
            self.planned(s)?;
        }
        if let Some(&bytes) = lines.iter().find(|&&n| n > INPUT.sample_bytes) {
            return Err(Misfit::TooLarge {
                bytes,
                max: INPUT.sample_bytes,
            });
        }
        let bytes = self.bytes + lines.iter().sum::<usize>() as u64;
        if bytes > self.byte_cap() {
            return Err(Misfit::RunFull {
                bytes,
                cap: self.byte_cap(),
            });
        }
        Ok(())
    }

    /// The samples were stored.
    pub fn took(&mut self, samples: &[Sample], lines: &[usize]) {
        for s in samples {
            self.taken.insert((s.arm(), s.rep));
        }
        self.bytes += lines.iter().sum::<usize>() as u64;
    }
}

/// The sample with only what this host stores of a page's: no field it does not know
/// (`extra`, and in `observed` anything but `webdriver` and `debugger_attached`), the arm's own label
/// and arm, the error and the browser's rejection text clipped.
pub fn only_known(mut s: Sample) -> Sample {
    let arm = s.arm();
    s.body = arm.label();
    s.recorded_arm = Some(arm);
    s.extra = serde_json::Map::new();
    s.observed.extra = serde_json::Map::new();
    s.module_failure = s.module_failure.map(|f| f.clipped());
    for text in [s.error.as_mut(), s.rejection.as_mut()]
        .into_iter()
        .flatten()
    {
        if let Some((cut, _)) = text.char_indices().nth(INPUT.error_chars) {
            text.truncate(cut);
        }
    }
    s
}
