//! The limits every plan is held to, wherever it comes from (`unobserved run`, the popup,
//! a job), and the one validator that applies them. The options page gets the same
//! vocabulary and numbers as data: tests/fixtures/plan-limits.json, and the module
//! extension/lib/plan-limits.js generated beside it (see the test below).

use crate::domain::arm::{Api, BodyKind, ModuleName, Transport};
use crate::domain::limits::{Between, Bounds, Limits, LIMITS};
use crate::domain::plan::{AutoBudget, Plan};

/// The budget of an auto-sampled run when none is given (the popup's Options and
/// `unobserved run` without --reps): about a minute of measuring, and reps only as a
/// backstop.
pub const AUTO_DEFAULT: AutoBudget = AutoBudget {
    max_reps: LIMITS.reps.max,
    max_seconds: 60,
};

/// Which of a plan's sizes a size error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeOf {
    Body,
    EncryptedFile,
    Download,
    Parallel,
}

/// Why a plan cannot run: one variant per rule. `kind()` is what travels in an error
/// reply (error 16, `invalid-plan`), so callers match kinds, never words.
#[derive(Debug, Clone, PartialEq, strum::IntoStaticStr, strum::EnumDiscriminants)]
#[strum(serialize_all = "kebab-case")]
#[strum_discriminants(
    name(PlanErrorKind),
    derive(strum::EnumIter, strum::IntoStaticStr),
    strum(serialize_all = "kebab-case")
)]
pub enum PlanError {
    SizeTooSmall {
        what: SizeOf,
        bytes: u64,
        min: u64,
    },
    SizeTooLarge {
        what: SizeOf,
        bytes: u64,
        max: u64,
    },
    RepsOutOfRange {
        reps: u32,
        limit: Bounds<u32>,
    },
    WarmupOutOfRange {
        warmup: u32,
        limit: Bounds<u32>,
    },
    NoArms,
    UnknownBody {
        body: String,
    },
    RepeatedBody {
        body: BodyKind,
    },
    RepeatedTransport {
        transport: Transport,
    },
    TlsWithoutBodies,
    NegativeControlWithoutBodies,
    NoChunkSizes,
    ChunkSizeOutOfRange {
        bytes: u64,
        limit: Bounds<u64>,
    },
    NoStreams,
    StreamsOutOfRange {
        streams: u32,
        limit: Bounds<u32>,
    },
    HorizonOutOfRange {
        horizon: f64,
        limit: Between,
    },
    AutoRepsOutOfRange {
        max_reps: u32,
        limit: Bounds<u32>,
    },
    AutoSecondsOutOfRange {
        max_seconds: u64,
        limit: Bounds<u64>,
    },
    BlockRepsOutOfRange {
        block_reps: u32,
        limit: Bounds<u32>,
    },
    /// A block of each load (`Plan::minimum_reps`) is more reps than a run may take.
    LoadBlocksOverReps {
        block_reps: u32,
        loads: usize,
        limit: Bounds<u32>,
    },
    RepeatedLoad {
        load: crate::domain::conditions::Load,
    },
    LoadNotOnThisOs,
    RepeatedApi {
        api: Api,
    },
    XhrWithoutBodies,
    RepeatedModule {
        name: ModuleName,
    },
    TooManyModules {
        modules: usize,
        max: usize,
    },
    ModuleNameTaken {
        name: ModuleName,
    },
    BaselineNotAModule {
        name: ModuleName,
    },
    ModuleTimeoutOutOfRange {
        secs: u32,
        max: u32,
    },
}

/// Its words are export's (`export/plan_error.rs`).
impl std::error::Error for PlanError {}

/// Reps per block: at least one; at most a run's whole reps.
pub const BLOCK_REPS: Bounds<u32> = Bounds { min: 1, max: 1000 };

/// The longest a module upload may be given before it is aborted.
pub const MAX_MODULE_TIMEOUT_SECS: u32 = 3600;

impl PlanError {
    /// The rule's name in kebab-case, e.g. "reps-out-of-range".
    pub fn kind(&self) -> &'static str {
        self.into()
    }
}

impl Plan {
    /// Whether this plan can run within `limits` (`platform::memory::plan_limits()` on
    /// this machine): every rule, in one place, for every source.
    pub fn validate_within(&self, limits: &Limits) -> Result<(), PlanError> {
        check_size(SizeOf::Body, self.size_bytes, limits)?;
        if !limits.reps.contains(self.reps) {
            return Err(PlanError::RepsOutOfRange {
                reps: self.reps,
                limit: limits.reps,
            });
        }
        if !limits.warmup.contains(self.warmup) {
            return Err(PlanError::WarmupOutOfRange {
                warmup: self.warmup,
                limit: limits.warmup,
            });
        }
        if let Some(horizon) = self.horizon.filter(|h| !limits.horizon.contains(*h)) {
            return Err(PlanError::HorizonOutOfRange {
                horizon,
                limit: limits.horizon,
            });
        }
        self.check_arms()?;
        self.check_modules()?;
        self.check_workloads(limits)?;
        self.check_blocks(limits)?;
        self.check_auto(limits)
    }

    fn check_blocks(&self, limits: &Limits) -> Result<(), PlanError> {
        if let Some(k) = self.block_reps.filter(|k| !BLOCK_REPS.contains(*k)) {
            return Err(PlanError::BlockRepsOutOfRange {
                block_reps: k,
                limit: BLOCK_REPS,
            });
        }
        if !limits.reps.contains(self.minimum_reps()) {
            return Err(PlanError::LoadBlocksOverReps {
                block_reps: self.block_reps.unwrap_or_default(),
                loads: self.loads.len(),
                limit: limits.reps,
            });
        }
        if let Some(&load) = first_repeat(&self.loads) {
            return Err(PlanError::RepeatedLoad { load });
        }
        if cfg!(not(unix)) && self.loads.contains(&crate::domain::conditions::Load::Cpu) {
            return Err(PlanError::LoadNotOnThisOs);
        }
        Ok(())
    }

    fn check_arms(&self) -> Result<(), PlanError> {
        if let Some(&body) = first_repeat(&self.bodies) {
            return Err(PlanError::RepeatedBody { body });
        }
        if let Some(&transport) = first_repeat(&self.transports) {
            return Err(PlanError::RepeatedTransport { transport });
        }
        if let Some(&api) = first_repeat(&self.apis) {
            return Err(PlanError::RepeatedApi { api });
        }
        if self.apis.contains(&Api::Xhr) && !self.bodies.iter().any(|b| b.goes_through(Api::Xhr)) {
            return Err(PlanError::XhrWithoutBodies);
        }
        if self.bodies.is_empty() {
            if self.workloads.is_empty() && self.modules.is_empty() {
                return Err(PlanError::NoArms);
            }
            if self.transports.iter().any(|t| t.is_tls()) {
                return Err(PlanError::TlsWithoutBodies);
            }
            if self.negative_control {
                return Err(PlanError::NegativeControlWithoutBodies);
            }
        }
        Ok(())
    }

    fn check_modules(&self) -> Result<(), PlanError> {
        let max = crate::domain::workload::MAX_MODULES;
        if self.modules.len() > max {
            return Err(PlanError::TooManyModules {
                modules: self.modules.len(),
                max,
            });
        }
        let names: Vec<&ModuleName> = self.modules.iter().map(|m| &m.name).collect();
        if let Some(&name) = first_repeat(&names) {
            return Err(PlanError::RepeatedModule { name: name.clone() });
        }
        let built_in = |n: &ModuleName| {
            use strum::IntoEnumIterator;
            let taken = ["download", "encrypted", "parallel"];
            BodyKind::iter().any(|b| <&str>::from(b).eq_ignore_ascii_case(n.as_str()))
                || taken.iter().any(|t| t.eq_ignore_ascii_case(n.as_str()))
        };
        if let Some(&name) = names.iter().find(|n| built_in(n)) {
            return Err(PlanError::ModuleNameTaken { name: name.clone() });
        }
        let max = MAX_MODULE_TIMEOUT_SECS;
        if let Some(secs) = self.module_timeout_secs.filter(|s| !(1..=max).contains(s)) {
            return Err(PlanError::ModuleTimeoutOutOfRange { secs, max });
        }
        match &self.baseline {
            Some(b) if !names.contains(&b) => {
                Err(PlanError::BaselineNotAModule { name: b.clone() })
            }
            _ => Ok(()),
        }
    }

    fn check_workloads(&self, limits: &Limits) -> Result<(), PlanError> {
        let w = &self.workloads;
        if let Some(e) = &w.encrypted {
            check_size(SizeOf::EncryptedFile, e.file_bytes, limits)?;
            if e.chunk_sizes.is_empty() {
                return Err(PlanError::NoChunkSizes);
            }
            if let Some(&bytes) = e
                .chunk_sizes
                .iter()
                .find(|&&c| !limits.chunk_bytes.contains(c))
            {
                return Err(PlanError::ChunkSizeOutOfRange {
                    bytes,
                    limit: limits.chunk_bytes,
                });
            }
        }
        if let Some(d) = &w.download {
            check_size(SizeOf::Download, d.bytes, limits)?;
        }
        if let Some(p) = &w.parallel {
            check_size(SizeOf::Parallel, p.bytes, limits)?;
            if p.streams.is_empty() {
                return Err(PlanError::NoStreams);
            }
            if let Some(&streams) = p.streams.iter().find(|&&s| !limits.streams.contains(s)) {
                return Err(PlanError::StreamsOutOfRange {
                    streams,
                    limit: limits.streams,
                });
            }
        }
        Ok(())
    }

    fn check_auto(&self, limits: &Limits) -> Result<(), PlanError> {
        let Some(budget) = self.auto else {
            return Ok(());
        };
        if !limits.auto_max_reps.contains(budget.max_reps) {
            return Err(PlanError::AutoRepsOutOfRange {
                max_reps: budget.max_reps,
                limit: limits.auto_max_reps,
            });
        }
        if !limits.auto_max_seconds.contains(budget.max_seconds) {
            return Err(PlanError::AutoSecondsOutOfRange {
                max_seconds: budget.max_seconds,
                limit: limits.auto_max_seconds,
            });
        }
        Ok(())
    }
}

fn check_size(what: SizeOf, bytes: u64, limits: &Limits) -> Result<(), PlanError> {
    let Bounds { min, max } = limits.size_bytes;
    if bytes < min {
        return Err(PlanError::SizeTooSmall { what, bytes, min });
    }
    if bytes > max {
        return Err(PlanError::SizeTooLarge { what, bytes, max });
    }
    Ok(())
}

/// The first item that appears again later.
fn first_repeat<T: PartialEq>(items: &[T]) -> Option<&T> {
    items
        .iter()
        .enumerate()
        .find(|(i, item)| items[i + 1..].contains(item))
        .map(|(_, item)| item)
}

/// What the extension needs to build and check plans: the body kinds, the transports and
/// every limit, as tests/fixtures/plan-limits.json holds them.
pub fn shared_data() -> serde_json::Value {
    use strum::IntoEnumIterator;
    serde_json::json!({
        "body_kinds": BodyKind::iter().collect::<Vec<_>>(),
        "transports": Transport::iter().collect::<Vec<_>>(),
        // Every load a run can put on the machine, in the order `--load none,cpu` runs
        // them: the options' load tick box sends them all.
        "loads": crate::domain::conditions::Load::iter().collect::<Vec<_>>(),
        "limits": LIMITS,
        "auto_default": AUTO_DEFAULT,
        // Every rule's name, as error 16's `kind` says it: the options page names the
        // rule an option breaks by these.
        "plan_error_kinds": PlanErrorKind::iter().map(<&str>::from).collect::<Vec<_>>(),
        // How long a page that reloads itself per block may take to come back: the
        // extension's background waits as long as `serve` does.
        "page_return_ms": crate::domain::run::PAGE_RETURN.as_millis(),
    })
}

#[cfg(test)]
mod tests;
