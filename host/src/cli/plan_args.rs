//! The flags that describe a plan, shared by `run` and `serve`, and the one way they
//! become a checked Plan (`Plan::validate`, with the flag each rule is about).

use super::usage::flag;
use crate::domain::arm::BodyKind;
use crate::domain::flags::FlagError;
use crate::domain::plan::{AutoBudget, Plan};
use crate::domain::plan::{PlanError, SizeOf, AUTO_DEFAULT};
use clap::Args;
use strum::IntoEnumIterator;

#[derive(Args, Clone)]
pub struct PlanArgs {
    // The plan's sizes and numbers are checked by Plan::validate (domain/plan/validate.rs).
    /// Bytes per upload, e.g. 32MiB, 512KiB, 1GiB.
    #[arg(long, default_value = "32MiB", value_parser = super::args::parse_size)]
    pub size: u64,
    /// Exactly N measured repetitions of every body kind (interleaved rep by rep).
    /// Without it the run samples automatically: 6 reps, then one more at a time until
    /// every comparison is settled or --max-time is spent. Comparisons need at least 4
    /// per arm to resolve.
    #[arg(long, value_name = "N")]
    pub reps: Option<u32>,
    /// Uploads per body kind before measuring; not counted.
    #[arg(long, default_value_t = 1)]
    pub warmup: u32,
    /// Body kinds, comma-separated. Default: all four, or none when --workloads is given.
    #[arg(long, value_delimiter = ',', value_enum, ignore_case = true)]
    pub bodies: Option<Vec<crate::domain::arm::BodyKind>>,
    /// Transports every body kind runs over, comma-separated and interleaved:
    /// h1 (HTTP/1.1 in the clear, the default), h1-tls (HTTP/1.1 over TLS), h2 (HTTP/2
    /// over TLS; Chromium sends ReadableStream bodies only over it). TLS uses a fresh
    /// certificate for 127.0.0.1 and localhost that only this run's throwaway profile
    /// trusts. Each transport is compared with the nearer ones (h2 vs h1-tls vs h1).
    /// Workloads always travel over h1.
    #[arg(long, value_delimiter = ',', value_enum)]
    pub transport: Vec<crate::domain::arm::Transport>,
    /// APIs every body kind uploads through, comma-separated and interleaved: fetch (the
    /// default) and xhr (XMLHttpRequest with upload.onprogress listened to, as upload
    /// libraries use it; not for ReadableStream, which XHR would send as text). Each xhr
    /// arm is compared with its fetch twin.
    #[arg(long, value_delimiter = ',', value_enum)]
    pub api: Vec<crate::domain::workload::Api>,
    /// Sample automatically even with --reps (then the first N reps): keep adding
    /// interleaved reps until every ratio is settled (its 95% interval lies entirely
    /// inside or entirely outside ±--horizon), or until --max-reps or --max-time runs
    /// out. It stops for precision, not for a "win", so the verdicts keep their 5%
    /// error rate. This is what a run without --reps does.
    #[arg(long)]
    pub auto: bool,
    /// Auto-sampling: most reps in all [default: 1000]. Implies --auto.
    #[arg(long, value_name = "N")]
    pub max_reps: Option<u32>,
    /// Auto-sampling: most seconds from the run's start [default: 60]. Implies --auto.
    #[arg(long, value_name = "SECS")]
    pub max_time: Option<u64>,
    /// Differences smaller than this many percent count as "the same": a comparison
    /// whose whole 95% interval lies inside ±PCT says "same within ±PCT%". --auto adds
    /// reps until every interval lies entirely inside or entirely outside it.
    #[arg(long, default_value_t = 5.0, value_name = "PCT", value_parser = super::args::parse_horizon)]
    pub horizon: f64,
    /// Load as a dimension: run the blocks in turn quiet (none) and with a CPU load this
    /// tool generates (cpu: one CPU-bound thread per logical core at normal priority,
    /// stopped in quiet blocks), and give every comparison per condition, e.g.
    /// `--load none,cpu`. Every load gets at least one whole block, so the reps rise to
    /// block-reps × loads when --reps is fewer. Linux and other Unixes.
    #[arg(long, value_delimiter = ',', value_enum, value_name = "LOADS")]
    pub load: Vec<crate::domain::conditions::Load>,
    /// Reps per block: each block is one figure of every comparison, so the interval
    /// holds the spread between blocks [default: 3].
    #[arg(long, value_name = "N")]
    pub block_reps: Option<u32>,
}

impl PlanArgs {
    /// The plan these flags describe, before it is checked. Without --bodies: all four
    /// kinds, or none when `workloads` (or modules) carry the run.
    pub fn plan(&self, workloads: bool) -> Plan {
        let bodies = match &self.bodies {
            Some(b) => b.clone(),
            None if !workloads => BodyKind::iter().collect(),
            None => Vec::new(),
        };
        Plan {
            size_bytes: self.size,
            reps: self.reps.unwrap_or(Plan::default().reps),
            warmup: self.warmup,
            bodies,
            auto: self.auto_budget(),
            horizon: Some(self.horizon / 100.0),
            transports: self.transport.clone(),
            apis: self.api.clone(),
            block_reps: Some(
                self.block_reps
                    .unwrap_or(crate::domain::plan::DEFAULT_BLOCK_REPS),
            ),
            loads: self.load.clone(),
            ..Plan::default()
        }
    }
}

impl PlanArgs {
    /// Auto-sampling is the default; `--reps N` alone asks for exactly N reps, and any
    /// budget flag (or --auto) samples automatically from the first --reps.
    fn auto_budget(&self) -> Option<AutoBudget> {
        let asked =
            self.auto || self.max_reps.is_some() || self.max_time.is_some() || self.reps.is_none();
        asked.then_some(AutoBudget {
            max_reps: self.max_reps.unwrap_or(AUTO_DEFAULT.max_reps),
            max_seconds: self.max_time.unwrap_or(AUTO_DEFAULT.max_seconds),
        })
    }
}

/// The plan, held to `Plan::validate`: a broken rule is a usage error that opens with
/// its flag. --max-reps counts reps in all, so it is never fewer than --reps.
pub fn checked(mut plan: Plan) -> anyhow::Result<Plan> {
    plan.validate_within(&crate::platform::memory::plan_limits())
        .map_err(|error| {
            flag(FlagError::Plan {
                flag: flag_of(&error),
                error,
            })
        })?;
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
        PlanError::RepeatedApi { .. } | PlanError::XhrWithoutBodies => "--api",
        PlanError::RepeatedModule { .. }
        | PlanError::TooManyModules { .. }
        | PlanError::ModuleNameTaken { .. } => "--script",
        PlanError::BaselineNotAModule { .. } => "--baseline",
        PlanError::ModuleTimeoutOutOfRange { .. } => "--module-timeout",
        PlanError::BlockRepsOutOfRange { .. } | PlanError::LoadBlocksOverReps { .. } => {
            "--block-reps"
        }
        PlanError::RepeatedLoad { .. } | PlanError::LoadNotOnThisOs => "--load",
    }
}
