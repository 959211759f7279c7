//! Arguments for every subcommand, with the help text users read.

use crate::domain::host_name::PublicHost;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

const AFTER_HELP: &str = "\
A browser starts this same binary as its native messaging host; you never need to.

Exit codes: 0 ok · 1 failed · 2 bad usage · 3 browser missing · 4 the extension did not
connect · 5 --fail-on found a sample of a kind it names · 6 compare --fail-if-slower
found an arm slower beyond its bound · 7 compare --fail-if-slower could not tell (the
machine ran at another speed in one run, or an interval reaches past the bound) · 8
compare found a workload module of one name with different code (SHA-256) in two runs ·
9 results could not be stored (the store is not writable, or the disk is full) ·
129/130/143 stopped by
SIGHUP/SIGINT/SIGTERM (the run is recorded as stopped and the browser is ended).

State (results.jsonl, unobserved.log) lives in the per-user state dir; set
UNOBSERVED_STATE_DIR to use another.";

#[derive(Parser)]
#[command(name = "unobserved", version, about = "Measure fetch() upload speed in a real browser with no debugger attached, and verify every byte that arrives.", after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// More detail in the log.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Do not write unobserved.log in the state dir.
    #[arg(long, global = true, hide = true)]
    pub no_log_file: bool,
}

#[derive(Subcommand)]
pub enum Command {
    /// Run the upload suite in a throwaway browser profile and print the results.
    // Boxed: its flags (a parsed --sink-url among them) outweigh every other command's.
    Run(Box<RunArgs>),
    /// Show stored results as a table, JSON, CSV, Markdown or a self-contained HTML page.
    Report(ReportArgs),
    /// Register the native host with your browsers so the extension can reach it.
    Install(InstallArgs),
    /// Remove exactly what `install` wrote.
    Uninstall(UninstallArgs),
    /// Check every browser's registration and the state dir, with a fix for each problem.
    Doctor(DoctorArgs),
    /// Compare two stored runs arm by arm: did this get slower?
    Compare(CompareArgs),
    /// Build the store packages: a .zip for Chrome/Edge and an .xpi for Firefox.
    Pack(PackArgs),
    /// Run the sink alone (e.g. on a server on your LAN) and print its upload URL.
    Sink(SinkArgs),
    /// Register your own upload code (a workload module) so the popup and Options offer
    /// it as an arm: add NAME PATH, list, remove NAME.
    #[command(subcommand)]
    Workload(WorkloadCommand),
    /// Serve the benchmark page to any browser, no extension needed (WebKit, Safari,
    /// phones): prints its URL; each Run there is stored as a run of its own.
    Serve(Box<ServeArgs>),
    /// Internal: prints the browser binary `unobserved run --browser NAME` would launch
    /// (for tests and scripts that must launch the same one).
    #[command(name = "__find-browser", hide = true)]
    FindBrowser { name: String },
    /// Internal: cleans up after `unobserved run` if it is killed outright.
    #[command(name = "__watchdog", hide = true)]
    Watchdog(WatchdogArgs),
    /// Internal: the CPU load of `--load cpu` (conditions/load.rs), killed with its run.
    #[command(name = "__load", hide = true)]
    Load {
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
}

#[derive(Subcommand)]
pub enum WorkloadCommand {
    /// Register the ES module at PATH as NAME. The file is read again at every run; a run
    /// of a file that changed since is recorded with its new SHA-256.
    Add {
        #[arg(value_name = "NAME")]
        name: String,
        #[arg(value_name = "PATH")]
        path: PathBuf,
    },
    /// The registered modules, each with its path and whether its file changed.
    List {
        /// As JSON, for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Forget the module NAME (its file is left alone).
    Remove {
        #[arg(value_name = "NAME")]
        name: String,
    },
}

/// `--script NAME=PATH`: a workload module for this run.
#[derive(Debug, Clone)]
pub struct ScriptArg {
    pub name: crate::domain::workload::ModuleName,
    pub path: PathBuf,
}

fn parse_script(text: &str) -> Result<ScriptArg, String> {
    let (name, path) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?} is not NAME=PATH, e.g. new=./upload.mjs"))?;
    if path.is_empty() {
        return Err(format!("{text:?} names no file after '='"));
    }
    Ok(ScriptArg {
        name: name.parse().map_err(|e| format!("{e}"))?,
        path: PathBuf::from(path),
    })
}

#[derive(Args)]
pub struct WatchdogArgs {
    #[arg(long)]
    pub pgid: i32,
    #[arg(long)]
    pub workspace: PathBuf,
    #[arg(long)]
    pub run_id: String,
}

#[derive(Args)]
pub struct SinkArgs {
    /// Address to listen on. Loopback unless you say otherwise, e.g. 0.0.0.0:8099 for the LAN.
    #[arg(long, default_value = "127.0.0.1:8099")]
    pub listen: std::net::SocketAddr,
    /// The upload token (default: a new random one). Anyone with the URL can upload.
    #[arg(long)]
    pub token: Option<String>,
    /// Largest body accepted.
    #[arg(long, default_value = "16GiB", value_parser = parse_size)]
    pub max_body: u64,
    /// Serve HTTPS (and HTTP/2 by ALPN, unless --transport h1-tls) with this sink's own
    /// certificate, made on first use and kept in the state dir; the printed URL pins
    /// it (#sha256=…).
    #[arg(long)]
    pub tls: bool,
    /// PEM certificate chain: serve HTTPS with it instead (needs --tls-key); the
    /// printed URL pins its first certificate.
    #[arg(long, requires = "tls_key", value_name = "PEM")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key for --tls-cert.
    #[arg(long, requires = "tls_cert", value_name = "PEM")]
    pub tls_key: Option<PathBuf>,
    /// What the sink offers: h1 (HTTP/1.1 in the clear, the default), h2 (HTTPS with
    /// HTTP/2 by ALPN, as --tls alone) or h1-tls (HTTPS offering only HTTP/1.1, so
    /// every browser measures HTTP/1.1 over TLS; the URL then ends &transport=h1-tls).
    /// h2 and h1-tls use --tls's certificate, or --tls-cert's.
    #[arg(long, value_name = "TRANSPORT")]
    pub transport: Option<crate::domain::arm::Transport>,
    /// Seconds a connection may stay silent before it is closed (1 to 86400).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub idle_timeout: u64,
    /// The host name or address clients should use in the printed URL (e.g. the server's
    /// DNS name). Default: the listen address, or with 0.0.0.0 / [::] this machine's
    /// first non-loopback address (every other one is listed on stderr).
    #[arg(long, value_name = "HOST", value_parser = PublicHost::parse)]
    pub public_host: Option<PublicHost>,
    /// Bytes received but not yet hashed, across all uploads. A body that fits is
    /// received at wire speed; a bigger one waits for the hasher and is flagged
    /// hash-bound. Peak memory grows with this. Default: 256MiB, or a quarter of RAM.
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    pub hash_queue: Option<u64>,
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
pub struct ServeArgs {
    /// Address to listen on: loopback and any free port unless you say otherwise, e.g.
    /// 0.0.0.0:8098 for a phone on the same network (then a QR code of the URL is
    /// printed too).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: std::net::SocketAddr,
    /// The name or address other devices reach this machine by: it goes in the printed
    /// URL and the QR code, and the sink answers to it (every other Host is refused).
    #[arg(long, value_name = "HOST", value_parser = PublicHost::parse)]
    pub public_host: Option<PublicHost>,
    /// Exit after the first run that completes (for scripts).
    #[arg(long)]
    pub once: bool,
    /// Runs one address may start a minute, after a burst of 3 (beyond it, 429). Raise
    /// it for a lab whose phones share one address behind NAT.
    #[arg(long, value_name = "N", default_value_t = crate::serve::rate::STARTS_PER_MINUTE.get(),
          value_parser = clap::value_parser!(u32).range(1..=600))]
    pub starts_per_minute: u32,
    /// Seconds a page that reloads itself for its next block (a page per block, with
    /// --block-reps) may take to come back before its run ends incomplete. Raise it for
    /// a phone on a slow link.
    #[arg(long, value_name = "SECS", default_value_t = crate::domain::run::PAGE_RETURN.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=600))]
    pub page_return: u64,
    #[command(flatten)]
    pub plan: super::plan_args::PlanArgs,
}

#[derive(Args)]
// "-1" is a value (refused with its range), not an unknown flag.
#[command(allow_negative_numbers = true)]
pub struct RunArgs {
    /// Which browser to launch: chromium, firefox or webkit (WebKitGTK's MiniBrowser,
    /// which runs the page `unobserved serve` serves, no extension). Several, comma-separated, run the
    /// same plan in each in turn (a fresh throwaway profile each) and print one table
    /// of arms × browsers with ratios to the first; a missing one is skipped and the
    /// exit code is 3.
    #[arg(long, default_value = "chromium", value_delimiter = ',')]
    pub browser: Vec<String>,
    /// Use this browser binary instead of searching for one. Repeat it to compare
    /// builds of the same browser (one --browser).
    #[arg(long, value_name = "PATH")]
    pub browser_path: Vec<PathBuf>,
    /// Run the plan this many times in a row, each its own run in the store, tagged as
    /// one series: `unobserved compare series:last~1 series:last` then sets two series
    /// side by side with each run one figure, so the interval holds the run-to-run
    /// spread as measured. One browser (and one build) only.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=50))]
    pub runs: u32,
    #[command(flatten)]
    pub plan: super::plan_args::PlanArgs,
    /// Real workloads, comma-separated: encrypted (AES-256-GCM chunked upload, serial and
    /// pipelined), download (streamed GET, verified), parallel (concurrent uploads).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub workloads: Vec<WorkloadKind>,
    /// Your own upload code as an arm, NAME=PATH of an ES module (the contract is in
    /// docs/workloads.md): it is given --size bytes and where to send them, runs
    /// interleaved rep by rep with the other arms, and the sink checks every byte.
    /// Repeatable: two versions of your code, e.g. --script old=a.mjs --script new=b.mjs.
    /// Without --bodies, a run of modules has no body-kind arms.
    #[arg(long = "script", value_name = "NAME=PATH", value_parser = parse_script)]
    pub scripts: Vec<ScriptArg>,
    /// Seconds one module upload may take; then it is aborted (its signal fires) and
    /// stored as a failure.
    #[arg(long, value_name = "SECS", requires = "scripts")]
    pub module_timeout: Option<u32>,
    /// The arm every other is compared with: a --script NAME.
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// Exit 6 when an arm is settled slower than --baseline by more than PCT percent (its
    /// whole 95% interval beyond the bound), 7 when it cannot tell (its interval reaches
    /// past the bound): the CI gate for two versions of your code in one run.
    #[arg(long, value_name = "PCT", value_parser = parse_horizon, requires = "baseline")]
    pub fail_if_slower: Option<f64>,
    /// encrypted: size of the file that is split into chunks.
    #[arg(long, default_value = "512MiB", value_parser = parse_size)]
    pub file_size: u64,
    /// encrypted: chunk sizes to compare, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "16MiB,32MiB", value_parser = parse_size)]
    pub chunk_sizes: Vec<u64>,
    /// parallel: numbers of concurrent uploads (each of --size bytes),
    /// comma-separated. Only with --workloads parallel.
    #[arg(long, value_delimiter = ',')]
    pub streams: Option<Vec<u32>>,
    /// Also write the run (run, samples, summary) as JSON to this file.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Show the browser window instead of running headless.
    #[arg(long)]
    pub headed: bool,
    /// Exit with code 5 when any sample has one of these outcomes, comma-separated:
    /// corrupted (bytes arrived but differ), unsupported (the browser refused the
    /// body), error (anything else failed). For CI gates.
    #[arg(long, value_delimiter = ',', value_enum, value_name = "OUTCOMES")]
    pub fail_on: Vec<FailOn>,
    /// Same as --fail-on corrupted.
    #[arg(long, hide = true)]
    pub fail_on_corruption: bool,
    /// Seconds to wait for the extension to start the run.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub connect_timeout: u64,
    /// Seconds the whole run may take (default: scaled to the plan).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=864_000))]
    pub timeout: Option<u64>,
    /// Load the extension from this folder instead of the copy built into the binary.
    #[arg(long, value_name = "DIR")]
    pub extension_dir: Option<PathBuf>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    /// The positive control: run every rep with the extension's own debugger attached to
    /// the benchmark tab (Network domain enabled, as automation clients do) and with
    /// nothing attached, and report the slowdown. Chromium family only.
    #[arg(long)]
    pub control: bool,
    /// The negative control: upload the baseline body (Uint8Array) a second time in every
    /// rep under its own label, "Uint8Array (A/A)", and compare the two. They are
    /// identical, so a "faster" or "slower" there means this machine is too noisy for
    /// the run's other verdicts, and the report says so.
    #[arg(long)]
    pub negative_control: bool,
    /// Upload to this sink (the URL `unobserved sink` printed, e.g. on a LAN server)
    /// instead of the local host's. Results are still stored locally. An https:// URL
    /// pins the sink's certificate (#sha256=…): any other is refused before launch.
    /// Its transport is the URL's: h2 for https://, h1-tls when it ends
    /// &transport=h1-tls (`sink --transport h1-tls`), h1 for http://.
    #[arg(long, value_name = "URL")]
    pub sink_url: Option<crate::domain::sink_url::SinkUrl>,
    /// Not a flag: how the throwaway profile trusts an https:// --sink-url's pinned
    /// certificate, once `run` has seen the sink present it.
    #[arg(skip)]
    pub sink_trust: Option<crate::platform::local_tls::Pins>,
    /// Keep the throwaway profile afterwards and print where it is (for debugging).
    #[arg(long)]
    pub keep_profile: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WorkloadKind {
    Encrypted,
    Download,
    Parallel,
}

/// Sample outcomes that `--fail-on` can turn into exit 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Corrupted,
    Unsupported,
    Error,
}

pub use crate::export::Format;

#[derive(Args)]
#[command(allow_negative_numbers = true)]
pub struct ReportArgs {
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// A run id, or `last`.
    #[arg(long)]
    pub run: Option<String>,
    /// Only runs in this browser (case-insensitive substring, e.g. firefox).
    #[arg(long)]
    pub browser: Option<String>,
    /// Only runs started at or after this date or time (e.g. 2026-11-30).
    #[arg(long)]
    pub since: Option<String>,
    /// Write to this file instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// List the runs (id, time, browser, plan, status, observed) instead of reporting them;
    /// with `--format json`, each run's head as JSON.
    #[arg(long)]
    pub list: bool,
    /// At most this many runs, the newest.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
pub struct CompareArgs {
    /// The run to compare with, then the runs under test (one or more): each a run id,
    /// `last`, or `last~N` (N runs before the last). Each is set against the first. A
    /// side may be several runs of one build joined by commas (`A1,A2,A3`), or a whole
    /// series of `run --runs N` (`series:last`, `series:last~N` N series before the
    /// newest, or `series:ID`): each run is then one figure, and the interval holds
    /// their run-to-run spread.
    #[arg(required = true, num_args = 2.., value_name = "RUN[,RUN…]")]
    pub runs: Vec<String>,
    /// Every format shows the same rows: table, csv, markdown and html (with grouped
    /// bars) for people, json for programs.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Write to this file instead of stdout.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Exit 6 when any arm of B is settled slower than A by more than PCT percent (its
    /// whole 95% interval beyond the bound): a regression gate for CI. Exit 7 when it
    /// cannot tell: the machine ran at another speed in one of the runs (not
    /// comparable), or an arm's interval reaches past the bound.
    #[arg(long, value_name = "PCT", value_parser = parse_horizon)]
    pub fail_if_slower: Option<f64>,
    /// Differences smaller than this many percent count as "the same".
    #[arg(long, default_value_t = 5.0, value_name = "PCT", value_parser = parse_horizon)]
    pub horizon: f64,
}

#[derive(Args)]
pub struct InstallArgs {
    /// Only these browsers (repeatable); default: every supported browser.
    #[arg(long = "browser", value_name = "NAME")]
    pub browsers: Vec<String>,
    /// Install for all users (system locations / HKLM); usually needs root or admin.
    #[arg(long)]
    pub system: bool,
    /// Print what would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Overwrite a same-named manifest that this tool did not write.
    #[arg(long)]
    pub force: bool,
    /// Also allow this extension id (e.g. one a web store assigned). Repeatable.
    #[arg(long = "extension-id", value_name = "ID")]
    pub extension_ids: Vec<String>,
    /// Point the manifests at the binary where it is, instead of copying it to a stable path.
    #[arg(long)]
    pub in_place: bool,
    /// A Chromium-family browser started with its own `--user-data-dir DIR` reads host
    /// manifests from `DIR/NativeMessagingHosts/` only: install there (Linux, macOS).
    #[arg(long, value_name = "DIR")]
    pub profile: Option<PathBuf>,
    /// Let your everyday Chromium-family browsers measure over TLS (h1-tls, h2; the
    /// only way Chromium uploads a ReadableStream): create a local CA that can certify
    /// only 127.0.0.1 and localhost, keep its key owner-only in the state dir, and trust
    /// it in your NSS database (~/.pki/nssdb; needs certutil from libnss3-tools). Linux
    /// only. `uninstall` removes it; SECURITY.md says what it allows.
    #[arg(long)]
    pub local_https: bool,
}

#[derive(Args)]
pub struct UninstallArgs {
    /// Remove the all-users install (system locations / HKLM) instead of yours.
    #[arg(long)]
    pub system: bool,
    /// Print what would be removed, remove nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Args)]
pub struct DoctorArgs {
    /// Check the all-users install (system locations / HKLM) instead of yours.
    #[arg(long)]
    pub system: bool,
    /// Check the manifests of a Chromium-family profile with its own --user-data-dir.
    #[arg(long, value_name = "DIR")]
    pub profile: Option<PathBuf>,
    /// Print the checks as JSON (each check's subject, what is fine, and each problem's
    /// kind, words and fix) instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct PackArgs {
    /// Folder for the packages.
    #[arg(long, default_value = "dist")]
    pub out: PathBuf,
    /// Also build the control build for Chromium-family browsers: the extension with the
    /// `debugger` permission required (Chromium will not grant it later), so the popup's
    /// Control button can attach a debugger. The browser warns about it at install.
    #[arg(long)]
    pub with_control: bool,
}

/// "32MiB" -> 33554432: B, KB/MB/GB/TB (powers of 1000) or KiB/MiB/GiB/TiB (1024),
/// read by bytesize; a fraction of a byte is dropped.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let size: bytesize::ByteSize = text.trim().parse().map_err(|_| {
        format!("{text:?} is not a size like 32MiB; use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB")
    })?;
    match size.as_u64() {
        0 => Err(format!("size {text:?} must be at least 1 byte")),
        // bytesize saturates what does not fit in a u64.
        u64::MAX => Err(format!("size {text:?} is too large")),
        bytes => Ok(bytes),
    }
}

/// A horizon in percent, within the plan's horizon limit (compare's too).
pub(super) fn parse_horizon(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("{s:?} is not a number of percent"))?;
    let limit = crate::domain::limits::LIMITS.horizon;
    if limit.contains(v / 100.0) {
        Ok(v)
    } else {
        Err(format!(
            "the horizon must be between {} and {} percent, not {v}",
            limit.above * 100.0,
            limit.below * 100.0
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("32MiB"), Ok(32 << 20));
        assert_eq!(parse_size("1.5KiB"), Ok(1536));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("3 furlongs").is_err());
        assert!(parse_size("0").is_err());
    }

    #[test]
    fn help_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn out_of_range_numbers_are_refused_as_values_not_as_unknown_flags() {
        use clap::error::ErrorKind;
        let kind = |args: &[&str]| {
            let argv = ["unobserved"].iter().chain(args).copied();
            Cli::try_parse_from(argv).err().map(|e| e.kind())
        };
        for args in [
            &["run", "--reps", "-1"][..],
            &["run", "--warmup", "-1"],
            &["run", "--timeout", "0"],
            &["run", "--connect-timeout", "0"],
            &["run", "--auto", "--max-reps", "-1"],
            &["run", "--auto", "--max-time", "-1"],
            &["run", "--streams", "-1"],
        ] {
            assert_eq!(kind(args), Some(ErrorKind::ValueValidation), "{args:?}");
        }
        assert_eq!(kind(&["run", "--reps", "4"]), None);
    }

    #[test]
    fn terabytes_parse_so_their_limit_can_refuse_them() {
        assert_eq!(parse_size("1TiB"), Ok(1 << 40));
        assert_eq!(parse_size("2TB"), Ok(2_000_000_000_000));
        assert!(parse_size("99999999999TiB").is_err());
    }

    #[test]
    fn printed_sizes_read_back_as_the_same_bytes() {
        for n in [1, 1023, 1024, 1536, 512 << 10, 32 << 20, 4 << 30, 16 << 30] {
            let text = crate::export::human_bytes(n);
            assert_eq!(parse_size(&text), Ok(n), "{text}");
        }
    }
}
