//! `domain::flags::FlagError` in words: what a person reads when `unobserved run`'s
//! flags cannot work.

use crate::domain::flags::FlagError;
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
        }
    }
}
