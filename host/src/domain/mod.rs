//! The vocabulary, pure: types and limits that say what things are, with no I/O. This
//! module imports nothing else in the crate (`host/tests/layers.rs` reads the sources to
//! keep it so); everything else may import it.
//!
//! - `conditions`: what the machine did while a run measured (issue 36).
//! - `limits`: every number a plan, a page or a peer may give, and its bounds.
//! - `received`: what the sink recorded of one upload (`Received`, its `ChunkTally`),
//!   and what the host found when it looked (`Receipt`).
//! - `pin`: a certificate's SHA-256, as a remote sink's URL pins it.
//! - `sink_url`: a remote sink's URL (`SinkUrl`) and the upload path's form.
//! - `timeline`: one upload's arrival record (`sink::timeline` records it).
//! - `machine`: a run's machine calibrations (`conditions::calibrate` takes them).
//! - `host_name`: a name or address other devices reach this machine by (`PublicHost`).
//! - `workload`: workload modules (names, the contract, what a run records of one) and
//!   the API a body arm uploads through.

pub mod arm;
pub mod ceiling;
pub mod conditions;
pub mod flags;
pub mod host_name;
pub mod limits;
pub mod machine;
pub mod page_timing;
pub mod pin;
pub mod plan;
pub mod received;
pub mod run;
pub mod sample;
pub mod series;
pub mod sink_url;
pub mod timeline;
pub mod upload_id;
pub mod workload;
