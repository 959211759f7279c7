//! Unobserved: measure fetch() uploads in an everyday browser with nothing attached,
//! and verify every byte that arrives.

pub mod allowed_ids;
pub mod arm;
pub mod cli;
pub mod conditions;
pub mod cpu;
pub mod domain;
pub mod exit;
pub mod export;
pub mod extension_files;
pub mod interleave;
pub mod local_ca;
pub mod local_tls;
pub mod log_file;
pub mod logging;
pub mod machine;
pub mod mode;
pub mod model;
pub mod modules;
pub mod native;
pub mod net;
pub mod page_timing;
pub mod plan_limits;
pub mod protocol;
pub mod remote_tls;
pub mod report;
pub mod run;
pub mod series;
pub mod serve;
pub mod sink;
pub mod state;
pub mod stats;
pub mod store;
pub mod units;
pub mod untrusted;
pub mod verify;
