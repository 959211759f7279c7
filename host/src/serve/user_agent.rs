//! Which browser and OS a page of `unobserved serve` runs in, from what it sent: the
//! User-Agent header and, where the browser offers them, User-Agent Client Hints (the
//! `Sec-CH-UA*` headers, and the high-entropy values the page read from
//! `navigator.userAgentData`). A table, not a chain of ifs: the first row whose token
//! appears wins, so more specific brands come first. `extension/lib/environment.js`
//! reads the same user agents the same way; `tests/fixtures/user-agents.json` holds both
//! to it.

use crate::domain::sample::Environment;
use serde::Deserialize;

struct Row {
    token: &'static str,
    name: &'static str,
    /// Where the version is: after the token, or after `Version/` (Safari's own).
    version_after: &'static str,
}

const fn row(token: &'static str, name: &'static str) -> Row {
    Row {
        token,
        name,
        version_after: token,
    }
}

const BROWSERS: &[Row] = &[
    row("Edg/", "Edge"),
    row("EdgiOS/", "Edge"),
    row("OPR/", "Opera"),
    row("Vivaldi/", "Vivaldi"),
    row("Brave/", "Brave"),
    row("Firefox/", "Firefox"),
    row("FxiOS/", "Firefox"),
    row("HeadlessChrome/", "Chromium"),
    row("CriOS/", "Chrome"),
    row("Chrome/", "Chrome"),
    row("Epiphany/", "GNOME Web"),
    // Safari on Apple's systems; on Linux the same tokens are WebKitGTK (MiniBrowser,
    // GNOME Web), whose Version/ is a made-up Safari number, so it is not kept.
    Row {
        token: "Safari/",
        name: "Safari",
        version_after: "Version/",
    },
];

const SYSTEMS: &[(&str, &str)] = &[
    ("iPhone", "iOS"),
    ("iPad", "iPadOS"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("Android", "Android"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
];

/// What `navigator.userAgentData` told the page (Chromium-family browsers only).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, serde::Serialize)]
pub struct Hints {
    #[serde(default)]
    pub brands: Vec<Brand>,
    #[serde(default, rename = "fullVersionList")]
    pub full_version_list: Vec<Brand>,
    #[serde(default)]
    pub platform: Option<String>,
    #[serde(default, rename = "platformVersion")]
    pub platform_version: Option<String>,
    #[serde(default)]
    pub mobile: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
pub struct Brand {
    pub brand: String,
    pub version: String,
}

/// Browser, version and OS from a user agent and its hints.
pub fn parse(ua: &str, hints: &Hints) -> Environment {
    let row = BROWSERS.iter().find(|r| ua.contains(r.token));
    let mut browser = row.map_or("unknown", |r| r.name).to_owned();
    let mut version = row
        .and_then(|r| ua.split(r.version_after).nth(1))
        .map(|rest| rest.split([' ', ';', ')']).next().unwrap_or("").to_owned())
        .unwrap_or_default();
    let os = SYSTEMS
        .iter()
        .find(|(token, _)| ua.contains(token))
        .map_or("unknown", |(_, name)| name)
        .to_owned();
    let has = |brand: &str| hints.brands.iter().any(|b| b.brand == brand);
    if browser == "Chrome" {
        // Chromium and Chrome share a user agent; the brand list tells them apart.
        if has("Brave") {
            browser = "Brave".into();
        } else if !has("Google Chrome") && has("Chromium") {
            browser = "Chromium".into();
        }
    }
    if browser == "Safari" && os == "Linux" {
        browser = "WebKitGTK".into();
        version.clear();
    }
    // The user agent says 156.0.0.0; the full version is a high-entropy hint.
    let full = hints.full_version_list.iter().find(|b| {
        ["Chrom", "Edge", "Brave", "Opera", "Vivaldi"]
            .iter()
            .any(|t| b.brand.contains(t))
    });
    if let Some(full) = full {
        version = full.version.clone();
    }
    Environment {
        browser,
        browser_version: version,
        os,
        extension_version: String::new(),
    }
}

/// The low-entropy hints a Chromium browser sends as headers: `Sec-CH-UA` is a list of
/// `"Brand";v="156"` items.
pub fn brands_header(value: &str) -> Vec<Brand> {
    value
        .split(',')
        .filter_map(|item| {
            let (brand, version) = item.split_once(";v=")?;
            Some(Brand {
                brand: brand.trim().trim_matches('"').to_owned(),
                version: version.trim().trim_matches('"').to_owned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each user agent of the shared fixture reads as the fixture says, here as in
    /// extension/lib/environment.js.
    #[test]
    fn the_shared_user_agents_read_as_the_fixture_says() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/user-agents.json")).unwrap();
        for case in fixture["cases"].as_array().unwrap() {
            let hints = Hints {
                brands: serde_json::from_value(case["brands"].clone()).unwrap_or_default(),
                ..Hints::default()
            };
            let env = parse(case["ua"].as_str().unwrap(), &hints);
            let want = &case["want"];
            assert_eq!(
                (
                    env.browser.as_str(),
                    env.browser_version.as_str(),
                    env.os.as_str()
                ),
                (
                    want["browser"].as_str().unwrap(),
                    want["browser_version"].as_str().unwrap(),
                    want["os"].as_str().unwrap()
                ),
                "{}",
                case["ua"]
            );
        }
    }

    #[test]
    fn the_full_version_comes_from_the_hints_and_brands_from_the_header() {
        let brands = brands_header(r#""Chromium";v="156", "Not=A?Brand";v="24""#);
        assert_eq!(brands[0].brand, "Chromium");
        let hints = Hints {
            brands,
            full_version_list: vec![Brand {
                brand: "Chromium".into(),
                version: "156.0.8078.114".into(),
            }],
            ..Hints::default()
        };
        let ua = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";
        let env = parse(ua, &hints);
        assert_eq!(
            (env.browser.as_str(), env.browser_version.as_str()),
            ("Chromium", "156.0.8078.114")
        );
    }
}
