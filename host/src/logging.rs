//! Logs go to stderr and to `unobserved.log` in the state dir. Never to stdout: in
//! native mode stdout carries protocol frames only.

use crate::state;
use std::path::Path;

/// `quiet_stderr`: in CLI mode people read stderr, so it only gets warnings unless
/// --verbose; the log file always gets everything at `level`.
pub fn init(state_dir: Option<&Path>, verbose: bool, quiet_stderr: bool) {
    let level = match std::env::var("UNOBSERVED_LOG").ok().as_deref() {
        Some("trace") => log::LevelFilter::Trace,
        Some("debug") => log::LevelFilter::Debug,
        Some("warn") => log::LevelFilter::Warn,
        _ if verbose => log::LevelFilter::Debug,
        _ => log::LevelFilter::Info,
    };
    let pid = std::process::id();
    let mut dispatch = fern::Dispatch::new()
        .format(move |out, message, record| {
            out.finish(format_args!(
                "{} {pid} {:<5} {}: {}",
                chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ"),
                record.level(),
                record.target(),
                message
            ))
        })
        .level(level)
        .level_for("hyper", log::LevelFilter::Warn)
        // `unobserved sink` logs every request at info.
        .level_for(
            "unobserved::sink",
            if std::env::args().nth(1).as_deref() == Some("sink") {
                log::LevelFilter::Info
            } else {
                level
            },
        );
    let sink_mode = std::env::args().nth(1).as_deref() == Some("sink");
    let stderr_level = if quiet_stderr && !verbose && !sink_mode {
        log::LevelFilter::Warn
    } else {
        level
    };
    dispatch = dispatch.chain(
        fern::Dispatch::new()
            .level(stderr_level)
            .chain(std::io::stderr()),
    );
    if let Some(dir) = state_dir {
        // A log file we cannot open is not fatal: stderr still has everything.
        if state::ensure_private_dir(dir).is_ok() {
            let path = dir.join("unobserved.log");
            if let Ok(file) = crate::log_file::RotatingLog::open(path, crate::log_file::MAX_BYTES) {
                let file: Box<dyn std::io::Write + Send> = Box::new(file);
                dispatch = dispatch.chain(fern::Dispatch::new().chain(file));
            }
        }
    }
    let _ = dispatch.apply();
}
