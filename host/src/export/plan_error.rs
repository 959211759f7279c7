//! A plan error in words (`domain::plan::PlanError` is the rule; this is what a person
//! reads of it, in the CLI and in error 16's `message`).

use crate::domain::arm::BodyKind;
use crate::domain::limits::LIMITS;
use crate::domain::plan::{PlanError, SizeOf};
use crate::export::units::human_bytes;
use std::fmt;

impl fmt::Display for SizeOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            SizeOf::Body => "body size",
            SizeOf::EncryptedFile => "encrypted file size",
            SizeOf::Download => "download size",
            SizeOf::Parallel => "parallel upload size",
        })
    }
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::SizeTooSmall { what, bytes, min } => write!(f, "a {what} of {bytes} bytes is too small to time: use at least {}", human_bytes(*min)),
            PlanError::SizeTooLarge { what, bytes, max } => write!(f, "a {what} of {} is more than a browser tab can be asked to hold here: at most {} ({}, and an eighth of this machine's memory, since the page keeps the bytes, the body and the browser's copy)", human_bytes(*bytes), human_bytes(*max), human_bytes(LIMITS.size_bytes.max)),
            PlanError::RepsOutOfRange { reps, limit } => write!(f, "reps must be {limit}, not {reps}"),
            PlanError::WarmupOutOfRange { warmup, limit } => write!(f, "warm-up uploads must be {limit}, not {warmup}"),
            PlanError::NoArms => write!(f, "the plan has no arms: give body kinds or workloads"),
            PlanError::UnknownBody { body } => write!(f, "unknown body kind {body:?}; the kinds are {}", body_kinds()),
            PlanError::RepeatedBody { body } => write!(f, "body kind {body} is named twice"),
            PlanError::RepeatedTransport { transport } => write!(f, "transport {transport} is named twice"),
            PlanError::TlsWithoutBodies => write!(f, "TLS transports (h1-tls, h2) apply to body kinds, and workloads always travel over h1: give body kinds"),
            PlanError::NegativeControlWithoutBodies => write!(f, "the negative control repeats a body kind, and the plan has none (e.g. Uint8Array)"),
            PlanError::NoChunkSizes => write!(f, "an encrypted workload needs at least one chunk size"),
            PlanError::ChunkSizeOutOfRange { bytes, limit } => write!(f, "chunks of {} cannot be used: each must be between {} and {}, since the sink holds one chunk in memory to decrypt it", human_bytes(*bytes), human_bytes(limit.min), human_bytes(limit.max)),
            PlanError::NoStreams => write!(f, "a parallel workload needs at least one number of streams"),
            PlanError::StreamsOutOfRange { streams, limit } => write!(f, "parallel uploads must number {limit}, not {streams}"),
            PlanError::HorizonOutOfRange { horizon, limit } => write!(f, "a horizon of {horizon} must lie strictly between {} and {}", limit.above, limit.below),
            PlanError::AutoRepsOutOfRange { max_reps, limit } => write!(f, "an auto budget's reps must be {limit}, not {max_reps}"),
            PlanError::AutoSecondsOutOfRange { max_seconds, limit } => write!(f, "an auto budget's seconds must be {limit}, not {max_seconds}"),
            PlanError::BlockRepsOutOfRange { block_reps, limit } => write!(f, "reps per block must be {limit}, not {block_reps}"),
            PlanError::LoadBlocksOverReps { block_reps, loads, limit } => write!(f, "a block of each load is {block_reps} reps × {loads} loads, and a run's reps must be {limit}: fewer reps per block"),
            PlanError::RepeatedLoad { load } => write!(f, "load {load:?} is named twice"),
            PlanError::LoadNotOnThisOs => write!(f, "the CPU load (--load cpu) is generated on Linux and other Unixes only, not on this OS"),
            PlanError::RepeatedApi { api } => write!(f, "API {api} is named twice"),
            PlanError::XhrWithoutBodies => write!(f, "XHR arms upload body kinds XMLHttpRequest sends as bytes (Uint8Array, ArrayBuffer, Blob), and the plan has none"),
            PlanError::RepeatedModule { name } => write!(f, "module {name} is named twice"),
            PlanError::TooManyModules { modules, max } => write!(f, "a run may have at most {max} workload modules, not {modules}"),
            PlanError::ModuleNameTaken { name } => write!(f, "{name} is the name of a built-in arm; give the module another name"),
            PlanError::BaselineNotAModule { name } => write!(f, "the baseline {name} is none of the plan's modules"),
            PlanError::ModuleTimeoutOutOfRange { secs, max } => write!(f, "a module upload's timeout must be from 1 to {max} seconds, not {secs}"),
        }
    }
}

fn body_kinds() -> String {
    use strum::IntoEnumIterator;
    BodyKind::iter()
        .map(<&str>::from)
        .collect::<Vec<_>>()
        .join(", ")
}
