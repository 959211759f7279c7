//! The flags that describe a plan, shared by `run` and `serve`, and the one way they
//! become a checked Plan (`Plan::validate`, with the flag each rule is about).

use super::usage::usage;
use crate::arm::BodyKind;
use crate::model::{AutoBudget, Plan};
use crate::plan_limits::{PlanError, SizeOf};
use clap::Args;
use strum::IntoEnumIterator;

#[derive(Args, Clone)]
pub struct PlanArgs {
    // The plan's sizes and numbers are checked by Plan::validate (plan_limits.rs).
    /// Bytes per upload, e.g. 32MiB, 512KiB, 1GiB.
    #[arg(long, default_value = "32MiB", value_parser = super::args::parse_size)]
    pub size: u64,
    /// Measured repetitions of every body kind (interleaved rep by rep).
    /// Comparisons need at least 4 per arm to resolve.
    #[arg(long, default_value_t = 6)]
    pub reps: u32,
    /// Uploads per body kind before measuring; not counted.
    #[arg(long, default_value_t = 1)]
    pub warmup: u32,
    /// Body kinds, comma-separated. Default: all four, or none when --workloads is given.
    #[arg(long, value_delimiter = ',', value_enum, ignore_case = true)]
    pub bodies: Option<Vec<crate::arm::BodyKind>>,
    /// Transports every body kind runs over, comma-separated and interleaved:
    /// h1 (HTTP/1.1 in the clear, the default), h1-tls (HTTP/1.1 over TLS), h2 (HTTP/2
    /// over TLS; Chromium sends ReadableStream bodies only over it). TLS uses a fresh
    /// certificate for 127.0.0.1 and localhost that only this run's throwaway profile
    /// trusts. Each transport is compared with the nearer ones (h2 vs h1-tls vs h1).
    /// Workloads always travel over h1.
    #[arg(long, value_delimiter = ',', value_enum)]
    pub transport: Vec<crate::arm::Transport>,
    /// Keep adding interleaved reps after --reps until every ratio is settled (its 95%
    /// interval lies entirely inside or entirely outside ±--horizon), or until
    /// --max-reps or --max-time runs out. It stops for precision, not for a "win", so
    /// the verdicts keep their 5% error rate.
    #[arg(long)]
    pub auto: bool,
    /// With --auto: most reps in all.
    #[arg(long, default_value_t = 30, requires = "auto")]
    pub max_reps: u32,
    /// With --auto: most seconds for the measured part.
    #[arg(long, default_value_t = 600, requires = "auto")]
    pub max_time: u64,
    /// Differences smaller than this many percent count as "the same": a comparison
    /// whose whole 95% interval lies inside ±PCT says "same within ±PCT%". --auto adds
    /// reps until every interval lies entirely inside or entirely outside it.
    #[arg(long, default_value_t = 5.0, value_name = "PCT", value_parser = super::args::parse_horizon)]
    pub horizon: f64,
}

impl PlanArgs {
    /// The plan these flags describe, before it is checked. Without --bodies: all four
    /// kinds, or none when `workloads` carry the run.
    pub fn plan(&self, workloads: bool) -> Plan {
        let bodies = match &self.bodies {
            Some(b) => b.clone(),
            None if !workloads => BodyKind::iter().collect(),
            None => Vec::new(),
        };
        Plan {
            size_bytes: self.size,
            reps: self.reps,
            warmup: self.warmup,
            bodies,
            auto: self.auto.then_some(AutoBudget {
                max_reps: self.max_reps,
                max_seconds: self.max_time,
            }),
            horizon: Some(self.horizon / 100.0),
            transports: self.transport.clone(),
            ..Plan::default()
        }
    }
}

/// The plan, held to `Plan::validate`: a broken rule is a usage error that opens with
/// its flag. --max-reps counts reps in all, so it is never fewer than --reps.
pub fn checked(mut plan: Plan) -> anyhow::Result<Plan> {
    plan.validate()
        .map_err(|e| usage(format!("{}: {e}", flag_of(&e))))?;
    if let Some(budget) = &mut plan.auto {
        budget.max_reps = budget.max_reps.max(plan.reps);
    }
    Ok(plan)
}

/// The flag a plan's error is about, to open its usage error with.
fn flag_of(e: &PlanError) -> &'static str {
    match e {
        PlanError::SizeTooSmall { what, .. } | PlanError::SizeTooLarge { what, .. } => match what {
            SizeOf::EncryptedFile => "--file-size",
            SizeOf::Body | SizeOf::Download | SizeOf::Parallel => "--size",
        },
        PlanError::RepsOutOfRange { .. } => "--reps",
        PlanError::WarmupOutOfRange { .. } => "--warmup",
        PlanError::NoArms | PlanError::UnknownBody { .. } | PlanError::RepeatedBody { .. } => {
            "--bodies"
        }
        PlanError::RepeatedTransport { .. } | PlanError::TlsWithoutBodies => "--transport",
        PlanError::NegativeControlWithoutBodies => "--negative-control",
        PlanError::NoChunkSizes | PlanError::ChunkSizeOutOfRange { .. } => "--chunk-sizes",
        PlanError::NoStreams | PlanError::StreamsOutOfRange { .. } => "--streams",
        PlanError::HorizonOutOfRange { .. } => "--horizon",
        PlanError::AutoRepsOutOfRange { .. } => "--max-reps",
        PlanError::AutoSecondsOutOfRange { .. } => "--max-time",
    }
}
