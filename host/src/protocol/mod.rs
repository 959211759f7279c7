//! Native messaging: length-prefixed JSON frames and the typed messages they carry.
//! Every message and error code here is documented in PROTOCOL.md at the repo root.

pub mod errors;
pub mod framing;
pub mod job;
pub mod messages;
pub mod names;

pub use errors::ErrorCode;
pub use framing::{read_frame, write_frame, FrameError, MAX_INCOMING, MAX_OUTGOING};
pub use messages::{parse_incoming, Incoming, Outgoing};
pub use names::{InReplyTo, MessageType, PageMessage, ReplyType};
