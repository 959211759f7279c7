//! Logs go to stderr and to `unobserved.log` in the state dir. Never to stdout: in
//! native mode stdout carries protocol frames only. Each record is formatted once into
//! one bounded line, then written with one write per output: no output gets a write
//! per fragment, and no record, however big its message, gets more than one line.

use crate::platform::log_file::RotatingLog;
use crate::platform::state;
use crate::platform::untrusted::write_clipped;
use log::{LevelFilter, Log, Metadata, Record};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::sync::Mutex;

/// The most chars of a record's message one line holds (at most 64 KiB of UTF-8),
/// whatever the message is: far below the log file's cap.
pub const MAX_LINE_CHARS: usize = 16 * 1024;

/// `quiet_stderr`: in CLI mode people read stderr, so it only gets warnings unless
/// --verbose; the log file always gets everything at `level`.
pub fn init(state_dir: Option<&Path>, verbose: bool, quiet_stderr: bool) {
    let level = match std::env::var("UNOBSERVED_LOG").ok().as_deref() {
        Some("trace") => LevelFilter::Trace,
        Some("debug") => LevelFilter::Debug,
        Some("warn") => LevelFilter::Warn,
        _ if verbose => LevelFilter::Debug,
        _ => LevelFilter::Info,
    };
    // `unobserved sink` logs every request at info.
    let sink_mode = std::env::args().nth(1).as_deref() == Some("sink");
    let logger = Logger {
        level,
        sink_level: if sink_mode { LevelFilter::Info } else { level },
        stderr_level: if quiet_stderr && !verbose && !sink_mode {
            LevelFilter::Warn
        } else {
            level
        },
        file: state_dir.and_then(open_file).map(Mutex::new),
        pid: std::process::id(),
    };
    let most = logger.level.max(logger.sink_level);
    // Set once per process, for its whole life.
    if log::set_logger(Box::leak(Box::new(logger))).is_ok() {
        log::set_max_level(most);
    }
}

/// A log file we cannot open is not fatal: stderr still has everything.
fn open_file(dir: &Path) -> Option<RotatingLog> {
    state::ensure_private_dir(dir).ok()?;
    RotatingLog::open(
        dir.join("unobserved.log"),
        crate::platform::log_file::MAX_BYTES,
    )
    .ok()
}

struct Logger {
    level: LevelFilter,
    /// For `unobserved::sink…`.
    sink_level: LevelFilter,
    stderr_level: LevelFilter,
    file: Option<Mutex<RotatingLog>>,
    pid: u32,
}

impl Logger {
    fn level_for(&self, target: &str) -> LevelFilter {
        let under = |module: &str| {
            target
                .strip_prefix(module)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
        };
        if under("hyper") {
            LevelFilter::Warn
        } else if under("rustls") {
            // It warns of every client that sends an IP address as SNI (libsoup does).
            LevelFilter::Error
        } else if under("unobserved::sink") {
            self.sink_level
        } else {
            self.level
        }
    }
}

impl Log for Logger {
    fn enabled(&self, metadata: &Metadata) -> bool {
        metadata.level() <= self.level_for(metadata.target())
    }

    fn log(&self, record: &Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let line = line(self.pid, record);
        // Nothing to do about a failed log write but go on.
        if record.level() <= self.stderr_level {
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
        }
        if let Some(file) = &self.file {
            if let Ok(mut file) = file.lock() {
                let _ = file.write_line(&line);
            }
        }
    }

    fn flush(&self) {}
}

/// `<time> <pid> <level> <target>: <message>\n`, the message clipped.
fn line(pid: u32, record: &Record) -> String {
    let mut line = String::with_capacity(128);
    let _ = write!(
        line,
        "{} {pid} {:<5} {}: ",
        chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ"),
        record.level(),
        record.target(),
    );
    let _ = write_clipped(&mut line, record.args(), MAX_LINE_CHARS);
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_message_makes_one_bounded_line() {
        let huge = "\u{85}".repeat(1 << 20);
        let args = format_args!("{huge}");
        let record = Record::builder()
            .args(args)
            .level(log::Level::Warn)
            .target("unobserved::native")
            .build();
        let line = line(1, &record);
        assert_eq!(line.matches('\n').count(), 1);
        assert!(line.ends_with('\n'));
        assert!(line.len() < 4 * MAX_LINE_CHARS + 200, "{}", line.len());
    }
}
