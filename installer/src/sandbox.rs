//! Snap and Flatpak browsers run confined: they may not read the usual manifest dirs or
//! start a binary outside their sandbox. We detect them and say what works; we never
//! write into a sandbox's private folders behind the user's back.

use crate::layout::Layout;
use std::path::Path;

pub struct SandboxNote {
    pub browser: &'static str,
    pub kind: &'static str,
    /// Whether the host can work there at all (Snap Firefox, through the portal).
    pub reachable: bool,
    pub advice: &'static str,
}

struct Rule {
    browser: &'static str,
    kind: &'static str,
    reachable: bool,
    /// Paths relative to HOME (no leading '/') or absolute.
    markers: &'static [&'static str],
    advice: &'static str,
}

const RULES: &[Rule] = &[
    Rule {
        browser: "Firefox",
        kind: "snap",
        reachable: true,
        markers: &["/snap/bin/firefox", "snap/firefox"],
        advice: "Snap Firefox reaches native hosts through the desktop portal: it reads the normal ~/.mozilla/native-messaging-hosts manifest written by `unobserved install --browser firefox`, and asks once for permission. This needs xdg-desktop-portal 1.17 or newer; if Run says the host is missing, use Mozilla's .deb or tarball build instead.",
    },
    Rule {
        browser: "Chromium",
        kind: "snap",
        reachable: false,
        markers: &["/snap/bin/chromium", "snap/chromium"],
        advice: "Snap Chromium cannot start programs outside its confinement, so no native host works there. Use a non-snap Chromium or Google Chrome (.deb), then run `unobserved install`.",
    },
    Rule {
        browser: "Firefox",
        kind: "Flatpak",
        reachable: false,
        markers: &[".var/app/org.mozilla.firefox", "/var/lib/flatpak/app/org.mozilla.firefox"],
        advice: "Flatpak Firefox cannot start programs outside its sandbox without a hand-made flatpak-spawn wrapper and a filesystem override. Unobserved does not set that up for you; use a non-Flatpak Firefox for measurements.",
    },
    Rule {
        browser: "Chromium",
        kind: "Flatpak",
        reachable: false,
        markers: &[".var/app/org.chromium.Chromium", "/var/lib/flatpak/app/org.chromium.Chromium"],
        advice: "Flatpak Chromium cannot start programs outside its sandbox. Use a non-Flatpak Chromium or Chrome for measurements.",
    },
];

pub fn detect(layout: &Layout) -> Vec<SandboxNote> {
    RULES
        .iter()
        .filter(|r| {
            r.markers.iter().any(|m| {
                let p = if m.starts_with('/') {
                    layout.system_root.join(m.trim_start_matches('/'))
                } else {
                    layout.home.join(m)
                };
                Path::new(&p).exists()
            })
        })
        .map(|r| SandboxNote {
            browser: r.browser,
            kind: r.kind,
            reachable: r.reachable,
            advice: r.advice,
        })
        .collect()
}
