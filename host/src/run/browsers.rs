//! Browsers `unobserved run` can launch, as data. The engine decides how the profile
//! is prepared (by family, in launch.rs: chromium_args or firefox_args); everything
//! else is shared.

use std::path::{Path, PathBuf};
use unobserved_installer::manifest::Family;

pub struct Launchable {
    /// What `--browser` accepts.
    pub key: &'static str,
    pub display: &'static str,
    pub family: Family,
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
        family: Family::Chromium,
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
        family: Family::Firefox,
        paths: &[
            "/usr/lib/firefox-esr/firefox-esr",
            "/usr/lib/firefox/firefox",
            "/Applications/Firefox.app/Contents/MacOS/firefox",
        ],
        on_path: &["firefox-esr", "firefox"],
        install_hint:
            "install it (Debian: `sudo apt-get install firefox-esr`) or pass --browser-path",
    },
];

pub fn by_key(key: &str) -> Option<&'static Launchable> {
    LAUNCHABLE.iter().find(|b| b.key.eq_ignore_ascii_case(key))
}

impl Launchable {
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
