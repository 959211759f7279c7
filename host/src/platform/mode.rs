//! How the binary was started: by a browser as its native messaging host, or by a person.

use std::ffi::OsString;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// Chromium family: `argv[1] = chrome-extension://<id>/` (Windows adds `--parent-window=`).
    Chromium { id: String },
    /// Firefox family: `argv[1]` = the host manifest path, `argv[2]` = the add-on id.
    Firefox { manifest: PathBuf, id: String },
}

impl Caller {
    pub fn id(&self) -> &str {
        match self {
            Caller::Chromium { id } | Caller::Firefox { id, .. } => id,
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum Mode {
    Native(Caller),
    Cli,
}

pub fn detect(args: &[OsString]) -> Mode {
    let arg = |i: usize| args.get(i).and_then(|a| a.to_str());
    if let Some(origin) = arg(1).and_then(|a| a.strip_prefix("chrome-extension://")) {
        let id = origin.trim_end_matches('/');
        if !id.is_empty() && !id.contains('/') {
            return Mode::Native(Caller::Chromium { id: id.to_owned() });
        }
    }
    if let (Some(manifest), Some(id), None) = (arg(1), arg(2), args.get(3)) {
        if manifest.ends_with(".json") && !id.is_empty() && !id.starts_with('-') {
            return Mode::Native(Caller::Firefox {
                manifest: manifest.into(),
                id: id.to_owned(),
            });
        }
    }
    Mode::Cli
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(list: &[&str]) -> Vec<OsString> {
        std::iter::once("unobserved")
            .chain(list.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn chromium_origin_is_native_mode() {
        assert_eq!(
            detect(&argv(&[
                "chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm/"
            ])),
            Mode::Native(Caller::Chromium {
                id: "ofhblkgjlepfiadjplffojmacooicfhm".into()
            })
        );
        // Chrome on Windows appends the parent window handle.
        assert!(matches!(
            detect(&argv(&["chrome-extension://abc/", "--parent-window=0"])),
            Mode::Native(_)
        ));
    }

    #[test]
    fn firefox_manifest_and_id_is_native_mode() {
        assert_eq!(
            detect(&argv(&[
                "/home/u/.mozilla/native-messaging-hosts/org.unobserved.host.json",
                "unobserved@unobserved.org"
            ])),
            Mode::Native(Caller::Firefox {
                manifest: "/home/u/.mozilla/native-messaging-hosts/org.unobserved.host.json".into(),
                id: "unobserved@unobserved.org".into()
            })
        );
    }

    #[test]
    fn anything_else_is_the_cli() {
        for a in [
            &[][..],
            &["run"],
            &["report", "--format", "json"],
            &["chrome-extension://"],
            &["x.json", "--flag"],
        ] {
            assert_eq!(detect(&argv(a)), Mode::Cli, "{a:?}");
        }
    }
}
