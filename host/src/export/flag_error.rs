//! `domain::flags::FlagError` in words: what a person reads when a command's arguments
//! cannot work.

use crate::domain::flags::{Back, FlagError};
use std::fmt;

impl fmt::Display for FlagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlagError::UnknownBrowser { given, known } => write!(f, "unknown browser {given:?}; choose from {}", known.join(", ")),
            FlagError::WebkitOnePath => f.write_str("--browser webkit takes one --browser-path: WebKit builds cannot take turns rep by rep yet; run each build on its own"),
            FlagError::RunsOfOneBrowser => f.write_str("--runs repeats one browser's run: give one --browser (builds given with --browser-path twice already take turns in one run)"),
            FlagError::PathNeedsOneBrowser => f.write_str("--browser-path goes with one --browser: several paths compare builds of that browser"),
            FlagError::BrowserPathIsFolder { path } => write!(f, "--browser-path {} is a folder: name the browser's executable file", path.display()),
            FlagError::Script { error } => write!(f, "--script: {error}"),
            FlagError::BaselineWithoutScript => f.write_str("--baseline names the --script every other is compared with: give --script NAME=PATH"),
            FlagError::Baseline { error } => write!(f, "--baseline: {error}"),
            FlagError::ScriptNeedsLocalSink => f.write_str("--script needs the local sink, which serves the module and checks every byte it sends: drop --sink-url"),
            FlagError::ControlNeedsChromium { browser } => write!(f, "--control is not available in {browser}: it attaches a debugger through chrome.debugger, which only Chromium-family browsers have"),
            FlagError::PageEngineFlags { browser } => write!(f, "{browser} runs the page `unobserved serve` serves, on the local sink, without the extension: --sink-url, --workloads, --script and --extension-dir do not apply to it"),
            FlagError::StreamsWithoutParallel => f.write_str("--streams only applies to --workloads parallel; add it, or drop --streams"),
            FlagError::NotTheSinksTransport { transport } => write!(f, "--transport: a remote sink's transport is its URL's, {transport} for this one (h2 for an https:// sink, h1-tls for one whose URL ends &transport=h1-tls, h1 for an http:// one)"),
            FlagError::WorkloadsOverTls => f.write_str("--workloads travel over HTTP/1.1: use them with the local sink or an http:// sink URL"),
            FlagError::GeckoUpgrades { url, browser } => write!(f, "--sink-url {url}: {browser} cannot reach a plain http:// sink that is not on this machine. Its extension pages upgrade every such request to https:// (upgrade-insecure-requests, in the default Content-Security-Policy of Manifest V3 extension pages), and a plain sink cannot answer that; only loopback is spared. Start the sink with `unobserved sink --tls` and give the https://…#sha256=… URL it prints (docs/real-links.md)"),
            FlagError::ExtensionDirWithoutManifest { dir } => write!(f, "--extension-dir {}: no manifest.json there; give the extension/ folder of this repository", dir.display()),
            FlagError::JsonUnwritable { path, error } => write!(f, "--json {}: cannot write there ({error})", path.display()),
            FlagError::SinkUnresolvable { url, authority } => write!(f, "--sink-url {url}: cannot resolve {authority}"),
            FlagError::SinkRefused { origin, error } => write!(f, "--sink-url: the sink at {origin} {error}; nothing was launched"),
            FlagError::Plan { flag, error } => write!(f, "{flag}: {error}"),
            FlagError::RunNamedTwice { run_id } => write!(f, "run {run_id} is named twice: each run goes on one side, once"),
            FlagError::SeriesEmpty => f.write_str("series: needs last, last~N or a series id after it"),
            FlagError::NotBack { given, of } => write!(f, "{given:?}: after last~ comes a number of {} back", match of {
                Back::Runs => "runs",
                Back::Series => "series",
            }),
            FlagError::NoSuchSeries { side } => write!(f, "no series {side:?} in the store (`unobserved run --runs N` makes one; `unobserved report --list` shows the runs)"),
            FlagError::NoSuchRun { which } => write!(f, "no run {which:?} in the store (`unobserved report --list` shows them)"),
            FlagError::ExtensionId { id } => write!(f, "{id:?} is neither a Chromium extension id (32 letters a-p) nor a Firefox add-on id (name@domain or {{uuid}})"),
            FlagError::LocalHttpsNotLinux => f.write_str("--local-https is for Linux, where Chromium-family browsers read trust from ~/.pki/nssdb; on macOS and Windows use `unobserved run --transport`, whose throwaway profile trusts its own certificate"),
            FlagError::LocalHttpsSystem => f.write_str("--local-https trusts a CA for you alone; drop --system"),
            FlagError::LocalHttpsNeedsChromium => f.write_str("--local-https is for Chromium-family browsers; Firefox keeps its own certificates (docs/transports.md: Local HTTPS)"),
            FlagError::ProfileNotFolder { dir } => write!(f, "--profile {}: no such folder (give the browser's --user-data-dir)", dir.display()),
            FlagError::ListFormat => f.write_str("--list prints a table or JSON: leave out --format, or give --format json"),
            FlagError::Since { given } => write!(f, "--since {given:?} is not a date or time; use e.g. 2026-11-30 or 2026-11-30T14:00:00Z"),
            FlagError::ModuleName { error } | FlagError::Registry { error } => f.write_str(error),
            FlagError::ServeTlsOffLoopback => f.write_str("--transport h1-tls/h2 serves only on loopback: its certificate names 127.0.0.1 and localhost alone"),
            FlagError::ServeNeedsLocalHttps { error } => write!(f, "--transport h1-tls/h2 needs a certificate your browser trusts: run `unobserved install --local-https` first ({error})"),
            FlagError::SinkToken => f.write_str("--token must be at least 16 letters or digits (it is the only thing guarding uploads)"),
            FlagError::SinkH1WithTls => f.write_str("--transport h1 is HTTP/1.1 in the clear: drop --tls/--tls-cert, or say --transport h1-tls for HTTP/1.1 over TLS"),
        }
    }
}
