//! Flags of `unobserved run` that cannot work together or with this machine, typed: the
//! rule is the CLI's (`cli::run_cmd`), the words are `export::flag_error`'s. Found before
//! any browser starts; each exits 2.

use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
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
}
