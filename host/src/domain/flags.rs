//! Arguments that cannot work, together or on this machine, typed: each rule is its
//! command's (`cli/`), the words are `export::flag_error`'s. Found before anything is
//! launched or written; each exits 2.

use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq)]
pub enum FlagError {
    /// `--browser` names no browser this tool can launch.
    UnknownBrowser { given: String, known: Vec<String> },
    /// Several `--browser-path`s of WebKit: its builds cannot take turns rep by rep.
    WebkitOnePath,
    /// `--runs` beside several browsers or builds.
    RunsOfOneBrowser,
    /// `--browser-path` beside more than one `--browser`.
    PathNeedsOneBrowser,
    /// `--browser-path` names a folder.
    BrowserPathIsFolder { path: PathBuf },
    /// A `--script` that is not a readable workload module (the loader's error).
    Script { error: String },
    /// `--baseline` without any `--script`.
    BaselineWithoutScript,
    /// `--baseline` is not a module name (the parser's error).
    Baseline { error: String },
    /// `--script` with `--sink-url`: only the local sink serves modules.
    ScriptNeedsLocalSink,
    /// `--control` in a browser without chrome.debugger.
    ControlNeedsChromium { browser: String },
    /// A browser run through `serve`'s page, with a flag of the extension's runs.
    PageEngineFlags { browser: String },
    /// `--streams` without `--workloads parallel`.
    StreamsWithoutParallel,
    /// `--transport` other than the remote sink's own.
    NotTheSinksTransport {
        transport: crate::domain::arm::Transport,
    },
    /// Workloads (HTTP/1.1 only) on a TLS sink.
    WorkloadsOverTls,
    /// Firefox and a plain http:// sink off loopback: its pages upgrade to https://.
    GeckoUpgrades { url: String, browser: String },
    /// `--extension-dir` without a manifest.json.
    ExtensionDirWithoutManifest { dir: PathBuf },
    /// `--json` where no file can be written (the system's error).
    JsonUnwritable { path: PathBuf, error: String },
    /// `--sink-url`'s host does not resolve.
    SinkUnresolvable { url: String, authority: String },
    /// The sink presented another certificate or transport than its URL says.
    SinkRefused { origin: String, error: String },
    /// The plan breaks a rule (`Plan::validate`); `flag` is the flag that set it.
    Plan {
        flag: &'static str,
        error: crate::domain::plan::PlanError,
    },
    /// `compare`: a run named on two sides, or twice on one.
    RunNamedTwice { run_id: String },
    /// `compare`: `series:` with nothing after it.
    SeriesEmpty,
    /// `compare`: `last~` (of runs, or of series) without a number after it.
    NotBack { given: String, of: Back },
    /// `compare`: no such series in the store.
    NoSuchSeries { side: String },
    /// `compare`: no such run in the store.
    NoSuchRun { which: String },
    /// `install`: an extension id of neither family.
    ExtensionId { id: String },
    /// `install --local-https` off Linux.
    LocalHttpsNotLinux,
    /// `install --local-https --system`.
    LocalHttpsSystem,
    /// `install --local-https` without a Chromium-family browser.
    LocalHttpsNeedsChromium,
    /// `--profile` is not a folder.
    ProfileNotFolder { dir: PathBuf },
    /// `report --list` in a format other than a table or JSON.
    ListFormat,
    /// `report --since` that is not a date or time.
    Since { given: String },
    /// A workload module's name that is not one (the parser's error).
    ModuleName { error: String },
    /// `workload add/remove` refused by the registry (its error).
    Registry { error: String },
    /// `serve --transport h1-tls/h2` off loopback.
    ServeTlsOffLoopback,
    /// `serve --transport h1-tls/h2` without the local CA (its error).
    ServeNeedsLocalHttps { error: String },
    /// `sink --token` too short or not letters and digits.
    SinkToken,
    /// `sink --transport h1` beside a TLS flag.
    SinkH1WithTls,
}

/// What `last~N` counts back: runs, or (after `series:`) series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Back {
    Runs,
    Series,
}
