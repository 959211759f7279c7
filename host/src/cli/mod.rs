//! The command line. Each subcommand lives in its own file; this one parses and routes.

mod args;
mod compare_cmd;
mod matrix_auto;
mod pack;
mod plan_args;
mod report_cmd;
mod run_cmd;
mod serve_cmd;
pub mod setup_cmds;
mod sink_cmd;
pub mod usage;
mod workload_cmd;

pub use args::parse_size;
use args::{Cli, Command};
use clap::Parser;

pub use crate::platform::exit;

fn find_browser(name: &str) -> anyhow::Result<i32> {
    let browser = crate::launch::browsers::by_key(name)
        .ok_or_else(|| usage::flag(usage::unknown_browser(name)))?;
    match browser.find() {
        Some(path) => {
            println!("{}", path.display());
            Ok(exit::OK)
        }
        None => Err(crate::launch::RunError::BrowserMissing(format!(
            "{} was not found: {}",
            browser.display, browser.install_hint
        ))
        .into()),
    }
}

/// Logging to the state dir, unless this command must not create or hold it.
fn init_logging(cli: &Cli) {
    let state_dir = crate::platform::state::state_dir().ok();
    // Setting up is not using: install, uninstall and doctor do not create the state
    // dir just to log, so an install then an uninstall leaves HOME as it was.
    let setup = matches!(
        cli.command,
        Command::Install(_) | Command::Uninstall(_) | Command::Doctor(_)
    );
    // Uninstall never holds the log open: on Windows an open file cannot be deleted,
    // and uninstall removes a state dir the install created.
    let uninstalling = matches!(cli.command, Command::Uninstall(_));
    let log_dir = state_dir
        .as_deref()
        .filter(|d| !cli.no_log_file && !uninstalling && (!setup || d.exists()));
    crate::platform::logging::init(log_dir, cli.verbose, true);
}

/// The exit code for a command's error, by its type.
fn exit_code(e: &anyhow::Error) -> i32 {
    if e.downcast_ref::<usage::UsageError>().is_some() {
        return exit::USAGE;
    }
    if e.downcast_ref::<crate::report::module_code::ModuleCodeDiffers>()
        .is_some()
    {
        return exit::MODULE_CODE_DIFFERS;
    }
    match e.downcast_ref::<crate::launch::RunError>() {
        Some(crate::launch::RunError::BrowserMissing(_)) => exit::BROWSER_MISSING,
        Some(crate::launch::RunError::NoConnection(_)) => exit::NO_CONNECTION,
        Some(crate::launch::RunError::StoreFailed(_)) => exit::STORE_FAILED,
        Some(crate::launch::RunError::Interrupted(signal)) => signal.exit_code(),
        _ => exit::FAILED,
    }
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
    crate::platform::state::anchor_state_dir_env();
    init_logging(&cli);
    let result = match cli.command {
        Command::Run(a) => run_cmd::execute(*a),
        Command::Report(a) => report_cmd::execute(a),
        Command::Pack(a) => pack::execute(a),
        Command::Install(a) => setup_cmds::install(a),
        Command::Uninstall(a) => setup_cmds::uninstall(a),
        Command::Doctor(a) => setup_cmds::doctor(a),
        Command::Compare(a) => compare_cmd::execute(a),
        Command::Sink(a) => sink_cmd::execute(a),
        Command::Workload(c) => workload_cmd::execute(c),
        Command::Serve(a) => serve_cmd::execute(*a),
        Command::FindBrowser { name } => find_browser(&name),
        Command::Watchdog(a) => Ok(crate::launch::watchdog::main(a.pgid, a.workspace, a.run_id)),
        Command::Load { threads } => Ok(crate::conditions::load::main(threads)),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            exit_code(&e)
        }
    }
}
