//! What the binary stands on: the state dir, logging, TLS, exit codes, untrusted text.

pub mod allowed_ids;
pub mod cpu;
pub mod exit;
pub mod extension_files;
pub mod local_ca;
pub mod local_tls;
pub mod log_file;
pub mod logging;
pub mod memory;
pub mod mode;
pub mod net;
pub mod remote_tls;
pub mod state;
pub mod turns;
pub mod untrusted;
