//! Browsers `unobserved run` can launch, as data. The engine decides how the profile
//! is prepared (in launch.rs: chromium_args, firefox_args, or webkit.rs for a browser
//! without native messaging); everything else is shared.

use std::path::{Path, PathBuf};
use unobserved_installer::manifest::Family;

/// How a browser runs the suite and reports back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// It loads the extension, whose native host stores the results.
    Extension(Family),
    /// No native messaging a host can use (WebKit): it opens the page `serve` serves,
    /// which reports to the host over HTTP.
    Page,
}

pub struct Launchable {
    /// What `--browser` accepts.
    pub key: &'static str,
    pub display: &'static str,
    pub engine: Engine,
    /// Absolute locations checked first, in order.
    pub paths: &'static [&'static str],
    /// Names looked up on PATH after that.
    pub on_path: &'static [&'static str],
    /// Said when nothing is found.
    pub install_hint: &'static str,
}

pub const LAUNCHABLE: &[Launchable] = &[
    Launchable {
        key: "chromium",
        display: "Chromium",
        engine: Engine::Extension(Family::Chromium),
        // Debian's /usr/bin/chromium is a shell wrapper that adds flags of its own; call
        // the real binary.
        paths: &[
            "/usr/lib/chromium/chromium",
            "/usr/lib/chromium-browser/chromium-browser",
            "/Applications/Chromium.app/Contents/MacOS/Chromium",
        ],
        on_path: &["chromium", "chromium-browser"],
        install_hint:
            "install it (Debian/Ubuntu: `sudo apt-get install chromium`) or pass --browser-path",
    },
    Launchable {
        key: "firefox",
        display: "Firefox",
        engine: Engine::Extension(Family::Firefox),
        paths: &[
            "/usr/lib/firefox-esr/firefox-esr",
            "/usr/lib/firefox/firefox",
            "/Applications/Firefox.app/Contents/MacOS/firefox",
        ],
        on_path: &["firefox-esr", "firefox"],
        install_hint:
            "install it (Debian: `sudo apt-get install firefox-esr`) or pass --browser-path",
    },
    Launchable {
        key: "webkit",
        display: "WebKitGTK",
        engine: Engine::Page,
        // WebKitGTK's MiniBrowser: a plain browser window on the engine GNOME Web uses.
        paths: &[
            "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
            "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
            "/usr/libexec/webkit2gtk-4.1/MiniBrowser",
        ],
        on_path: &["MiniBrowser"],
        install_hint: "install it (Debian/Ubuntu: `sudo apt-get install libwebkit2gtk-4.1-0`, plus `xvfb` on a machine without a display) or pass --browser-path",
    },
];

pub fn by_key(key: &str) -> Option<&'static Launchable> {
    LAUNCHABLE.iter().find(|b| b.key.eq_ignore_ascii_case(key))
}

impl Launchable {
    /// The extension package this browser loads, if it loads one.
    pub fn family(&self) -> Option<Family> {
        match self.engine {
            Engine::Extension(f) => Some(f),
            Engine::Page => None,
        }
    }

    pub fn find(&self) -> Option<PathBuf> {
        let fixed = self
            .paths
            .iter()
            .map(PathBuf::from)
            .find(|p| is_executable(p));
        fixed.or_else(|| self.on_path.iter().find_map(|name| search_path(name)))
    }
}

fn search_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

pub fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}
