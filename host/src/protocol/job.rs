//! A suite the CLI hands to the extension through the `hello` reply, with the run's TLS
//! listeners and its turns.

use crate::domain::arm::Transport;
use crate::domain::plan::Plan;
use serde::{Deserialize, Serialize};

/// A suite the CLI hands to the extension through the `hello` reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub run_id: String,
    pub plan: Plan,
    /// Upload to this sink (e.g. `unobserved sink` on a LAN server) instead of the host's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_url: Option<crate::domain::sink_url::SinkUrl>,
    /// Close the benchmark tab when done (the CLI then ends the browser itself).
    #[serde(default = "yes")]
    pub close_tab: bool,
    /// The run's TLS listeners (--transport h1-tls/h2): the certificate its throwaway
    /// profile trusts, and the ports it trusts it at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<JobTls>,
    /// Interleaved builds: the turns this run takes with the others (`interleave.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<crate::platform::turns::JobTurns>,
    /// The machine calibration (`machine.rs`) the CLI took before the browser started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_cpu_ms: Option<f64>,
    /// Where the run's `--script` modules are: kept by the host (like `tls`), which reads
    /// and serves them; the extension's plan names them only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub module_files: Vec<JobModule>,
}

/// A `--script NAME=PATH` of a job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobModule {
    pub name: crate::domain::arm::ModuleName,
    pub path: std::path::PathBuf,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobTls {
    pub cert: crate::platform::local_tls::LocalCert,
    pub listeners: Vec<TlsListener>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TlsListener {
    pub transport: Transport,
    pub port: u16,
}

fn yes() -> bool {
    true
}
