//! Every browser the installer knows, as data: where each one reads native messaging
//! host manifests on Linux and macOS, and which registry keys it reads on Windows.
//! Adding a browser means adding a row.
//!
//! Where public sources disagree we write to every key a source names; each holds the
//! same manifest path, so the extra key is harmless and `uninstall` removes it:
//! - Brave on Windows: `Software\BraveSoftware\Brave-Browser\...` per Brave's own builds,
//!   and `Software\Google\Chrome\...`, which several password-manager hosts document
//!   as the key Brave actually reads.
//! - Vivaldi and Opera on Windows: both read Chrome's key; Vivaldi's own key is added
//!   because newer builds are reported to look there first.
//! - LibreWolf and Waterfox on Windows: their own key (`Software\LibreWolf\...`,
//!   `Software\Waterfox\...`) and Mozilla's, which older builds read.
//! - Chrome Beta and Dev read the stable channel's system dir on Linux
//!   (`/etc/opt/chrome/...`) and the stable channel's registry key on Windows.

use crate::manifest::Family;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    MacOs,
    Windows,
}

impl Os {
    pub fn current() -> Os {
        if cfg!(target_os = "macos") {
            Os::MacOs
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        }
    }
}

#[derive(Debug)]
pub struct Browser {
    pub key: &'static str,
    pub name: &'static str,
    pub family: Family,
    /// The name it gives a page or an extension (the user agent, `getBrowserInfo`), as
    /// `extension/lib/environment.js` reads it; `tests/fixtures/browser-families.json`
    /// holds the extension's family rule to this table.
    pub calls_itself: &'static str,
    /// Relative to $HOME.
    pub linux_user: &'static str,
    pub linux_system: &'static str,
    /// Relative to $HOME.
    pub mac_user: &'static str,
    pub mac_system: &'static str,
    /// Under HKCU (or HKLM with --system); `<host name>` is appended.
    pub windows_keys: &'static [&'static str],
    /// Executables whose presence on PATH means the browser is installed.
    pub binaries: &'static [&'static str],
}

pub const BROWSERS: &[Browser] = &[
    Browser {
        key: "chrome",
        name: "Google Chrome",
        family: Family::Chromium,
        calls_itself: "Chrome",
        linux_user: ".config/google-chrome/NativeMessagingHosts",
        linux_system: "/etc/opt/chrome/native-messaging-hosts",
        mac_user: "Library/Application Support/Google/Chrome/NativeMessagingHosts",
        mac_system: "/Library/Google/Chrome/NativeMessagingHosts",
        windows_keys: &[r"Software\Google\Chrome\NativeMessagingHosts"],
        binaries: &["google-chrome", "google-chrome-stable"],
    },
    Browser {
        key: "chrome-beta",
        name: "Google Chrome Beta",
        family: Family::Chromium,
        calls_itself: "Chrome",
        linux_user: ".config/google-chrome-beta/NativeMessagingHosts",
        linux_system: "/etc/opt/chrome/native-messaging-hosts",
        mac_user: "Library/Application Support/Google/Chrome Beta/NativeMessagingHosts",
        mac_system: "/Library/Google/Chrome/NativeMessagingHosts",
        windows_keys: &[r"Software\Google\Chrome\NativeMessagingHosts"],
        binaries: &["google-chrome-beta"],
    },
    Browser {
        key: "chrome-dev",
        name: "Google Chrome Dev",
        family: Family::Chromium,
        calls_itself: "Chrome",
        linux_user: ".config/google-chrome-unstable/NativeMessagingHosts",
        linux_system: "/etc/opt/chrome/native-messaging-hosts",
        mac_user: "Library/Application Support/Google/Chrome Dev/NativeMessagingHosts",
        mac_system: "/Library/Google/Chrome/NativeMessagingHosts",
        windows_keys: &[r"Software\Google\Chrome\NativeMessagingHosts"],
        binaries: &["google-chrome-unstable"],
    },
    Browser {
        key: "chromium",
        name: "Chromium",
        family: Family::Chromium,
        calls_itself: "Chromium",
        linux_user: ".config/chromium/NativeMessagingHosts",
        linux_system: "/etc/chromium/native-messaging-hosts",
        mac_user: "Library/Application Support/Chromium/NativeMessagingHosts",
        mac_system: "/Library/Application Support/Chromium/NativeMessagingHosts",
        windows_keys: &[r"Software\Chromium\NativeMessagingHosts"],
        binaries: &["chromium", "chromium-browser"],
    },
    Browser {
        key: "edge",
        name: "Microsoft Edge",
        family: Family::Chromium,
        calls_itself: "Edge",
        linux_user: ".config/microsoft-edge/NativeMessagingHosts",
        linux_system: "/etc/opt/edge/native-messaging-hosts",
        mac_user: "Library/Application Support/Microsoft Edge/NativeMessagingHosts",
        mac_system: "/Library/Microsoft/Edge/NativeMessagingHosts",
        windows_keys: &[r"Software\Microsoft\Edge\NativeMessagingHosts"],
        binaries: &["microsoft-edge", "microsoft-edge-stable"],
    },
    Browser {
        key: "brave",
        name: "Brave",
        family: Family::Chromium,
        calls_itself: "Brave",
        linux_user: ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        linux_system: "/etc/opt/chrome/native-messaging-hosts",
        mac_user: "Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        mac_system: "/Library/Google/Chrome/NativeMessagingHosts",
        windows_keys: &[
            r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts",
            r"Software\Google\Chrome\NativeMessagingHosts",
        ],
        binaries: &["brave-browser", "brave"],
    },
    Browser {
        key: "vivaldi",
        name: "Vivaldi",
        family: Family::Chromium,
        calls_itself: "Vivaldi",
        linux_user: ".config/vivaldi/NativeMessagingHosts",
        linux_system: "/etc/opt/vivaldi/native-messaging-hosts",
        mac_user: "Library/Application Support/Vivaldi/NativeMessagingHosts",
        mac_system: "/Library/Application Support/Vivaldi/NativeMessagingHosts",
        windows_keys: &[
            r"Software\Vivaldi\NativeMessagingHosts",
            r"Software\Google\Chrome\NativeMessagingHosts",
        ],
        binaries: &["vivaldi", "vivaldi-stable"],
    },
    Browser {
        key: "opera",
        name: "Opera",
        family: Family::Chromium,
        calls_itself: "Opera",
        linux_user: ".config/opera/NativeMessagingHosts",
        linux_system: "/etc/opt/chrome/native-messaging-hosts",
        mac_user: "Library/Application Support/com.operasoftware.Opera/NativeMessagingHosts",
        mac_system: "/Library/Google/Chrome/NativeMessagingHosts",
        windows_keys: &[r"Software\Google\Chrome\NativeMessagingHosts"],
        binaries: &["opera"],
    },
    Browser {
        key: "firefox",
        name: "Firefox",
        family: Family::Firefox,
        calls_itself: "Firefox",
        linux_user: ".mozilla/native-messaging-hosts",
        linux_system: "/usr/lib/mozilla/native-messaging-hosts",
        mac_user: "Library/Application Support/Mozilla/NativeMessagingHosts",
        mac_system: "/Library/Application Support/Mozilla/NativeMessagingHosts",
        windows_keys: &[r"Software\Mozilla\NativeMessagingHosts"],
        binaries: &["firefox", "firefox-esr"],
    },
    Browser {
        key: "librewolf",
        name: "LibreWolf",
        family: Family::Firefox,
        calls_itself: "LibreWolf",
        linux_user: ".librewolf/native-messaging-hosts",
        linux_system: "/usr/lib/librewolf/native-messaging-hosts",
        mac_user: "Library/Application Support/LibreWolf/NativeMessagingHosts",
        mac_system: "/Library/Application Support/LibreWolf/NativeMessagingHosts",
        windows_keys: &[
            r"Software\LibreWolf\NativeMessagingHosts",
            r"Software\Mozilla\NativeMessagingHosts",
        ],
        binaries: &["librewolf"],
    },
    Browser {
        key: "waterfox",
        name: "Waterfox",
        family: Family::Firefox,
        calls_itself: "Waterfox",
        linux_user: ".waterfox/native-messaging-hosts",
        linux_system: "/usr/lib/waterfox/native-messaging-hosts",
        mac_user: "Library/Application Support/Waterfox/NativeMessagingHosts",
        mac_system: "/Library/Application Support/Waterfox/NativeMessagingHosts",
        windows_keys: &[
            r"Software\Waterfox\NativeMessagingHosts",
            r"Software\Mozilla\NativeMessagingHosts",
        ],
        binaries: &["waterfox"],
    },
];

pub fn by_key(key: &str) -> Option<&'static Browser> {
    BROWSERS.iter().find(|b| b.key.eq_ignore_ascii_case(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each browser's name as the extension reads it, and its family: the extension's
    /// `isChromiumFamily` is held to this by `extension/tests/environment.test.js`.
    #[test]
    fn the_families_fixture_holds_this_table() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/browser-families.json"
        );
        let rows: Vec<serde_json::Value> = BROWSERS
            .iter()
            .map(|b| serde_json::json!({"key": b.key, "calls_itself": b.calls_itself, "family": b.family}))
            .collect();
        let data = serde_json::json!({
            "about": "Written from installer/src/browsers.rs (UNOBSERVED_WRITE_FIXTURES=1 cargo test -p unobserved-installer families); extension/lib/environment.js's isChromiumFamily holds to it.",
            "browsers": rows,
        });
        if std::env::var_os("UNOBSERVED_WRITE_FIXTURES").is_some() {
            std::fs::write(path, serde_json::to_string_pretty(&data).unwrap() + "\n").unwrap();
        }
        let fixture: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(
            fixture, data,
            "UNOBSERVED_WRITE_FIXTURES=1 cargo test -p unobserved-installer families rewrites it"
        );
    }

    #[test]
    fn the_table_names_every_browser_once_with_folders_of_its_own() {
        let keys: Vec<_> = BROWSERS.iter().map(|b| b.key).collect();
        for k in [
            "chrome",
            "chrome-beta",
            "chrome-dev",
            "chromium",
            "edge",
            "brave",
            "vivaldi",
            "opera",
            "firefox",
            "librewolf",
            "waterfox",
        ] {
            assert!(keys.contains(&k), "{k} missing");
        }
        // Unambiguous: `by_key` ignores case, so keys must differ case-insensitively, and
        // no two browsers may share a manifest folder (one would overwrite the other).
        let unique = |items: Vec<String>, what: &str| {
            let set: std::collections::BTreeSet<&String> = items.iter().collect();
            assert_eq!(set.len(), items.len(), "duplicate {what}: {items:?}");
        };
        unique(keys.iter().map(|k| k.to_lowercase()).collect(), "keys");
        unique(
            BROWSERS.iter().map(|b| b.linux_user.to_owned()).collect(),
            "Linux user folders",
        );
        // (System folders are shared on purpose: Chrome's variants, Brave and Opera all
        // read /etc/opt/chrome, and the manifests written there are identical.)
        unique(
            BROWSERS.iter().map(|b| b.mac_user.to_owned()).collect(),
            "macOS user folders",
        );
        for b in BROWSERS {
            assert!(
                !b.linux_user.starts_with('/') && !b.mac_user.starts_with('/'),
                "{}: user paths are relative to HOME",
                b.key
            );
            assert!(
                b.linux_system.starts_with('/') && b.mac_system.starts_with('/'),
                "{}",
                b.key
            );
            assert!(
                b.windows_keys
                    .iter()
                    .all(|k| k.starts_with("Software\\") && k.ends_with("NativeMessagingHosts")),
                "{}",
                b.key
            );
        }
    }
}
