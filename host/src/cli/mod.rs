//! The command line. Each subcommand lives in its own file; this one parses and routes.

mod args;
mod pack;
mod report_cmd;
mod run_cmd;
pub mod setup_cmds;
mod sink_cmd;

pub use args::parse_size;
use args::{Cli, Command};
use clap::Parser;

/// Exit codes, documented in `unobserved --help` and the README.
pub mod exit {
    pub const OK: i32 = 0;
    pub const FAILED: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const BROWSER_MISSING: i32 = 3;
    pub const NO_CONNECTION: i32 = 4;
    pub const CORRUPTION: i32 = 5;
}

pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
        }
    };
    let state_dir = crate::state::state_dir().ok();
    crate::logging::init(
        if cli.no_log_file {
            None
        } else {
            state_dir.as_deref()
        },
        cli.verbose,
        true,
    );
    let result = match cli.command {
        Command::Run(a) => run_cmd::execute(a),
        Command::Report(a) => report_cmd::execute(a),
        Command::Pack(a) => pack::execute(a),
        Command::Install(a) => setup_cmds::install(a),
        Command::Uninstall(a) => setup_cmds::uninstall(a),
        Command::Doctor(a) => setup_cmds::doctor(a),
        Command::Sink(a) => sink_cmd::execute(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            match e.downcast_ref::<crate::run::RunError>() {
                Some(crate::run::RunError::BrowserMissing(_)) => exit::BROWSER_MISSING,
                Some(crate::run::RunError::NoConnection(_)) => exit::NO_CONNECTION,
                _ => exit::FAILED,
            }
        }
    }
}
