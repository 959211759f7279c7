//! What an install writes, computed before anything is touched: files with their
//! contents, and (on Windows) registry values. `--dry-run` prints this and stops.

use crate::browsers::{Browser, Os};
use crate::ids::registry_key;
use crate::layout::Layout;
use crate::manifest;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileWrite {
    pub path: PathBuf,
    pub contents: String,
    /// Which browsers this file serves (several may share one system dir).
    pub browsers: Vec<String>,
    /// Owner-only (0600, in a 0700 dir): files in the host's state dir.
    #[serde(default)]
    pub private: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RegistryWrite {
    /// "HKCU" or "HKLM".
    pub hive: String,
    /// e.g. `Software\Google\Chrome\NativeMessagingHosts\org.unobserved.host`
    pub key: String,
    /// The key's default value: the manifest path.
    pub value: String,
}

/// A certificate to trust as a root in an NSS database (`trust.rs`): the local CA of
/// `install --local-https`, for Chromium-family browsers on Linux.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustWrite {
    pub nssdb: PathBuf,
    pub nickname: String,
    /// The certificate file, written by the same plan.
    pub cert_path: PathBuf,
    /// Its private key, which must stay owner-only (doctor checks).
    pub key_path: PathBuf,
}

#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    pub files: Vec<FileWrite>,
    pub registry: Vec<RegistryWrite>,
    #[serde(default)]
    pub trust: Vec<TrustWrite>,
}

pub fn plan(
    layout: &Layout,
    browsers: &[&Browser],
    host_path: &Path,
    system: bool,
    extra_ids: &[String],
) -> Plan {
    let mut out = Plan::default();
    for b in browsers {
        let path = layout.manifest_path(b, system);
        let contents = manifest::render(b.family, host_path, extra_ids);
        match out.files.iter_mut().find(|f| f.path == path) {
            Some(f) => f.browsers.push(b.key.to_owned()),
            None => out.files.push(FileWrite {
                path: path.clone(),
                contents,
                browsers: vec![b.key.to_owned()],
                private: false,
            }),
        }
        if layout.os == Os::Windows {
            for key in b.windows_keys {
                let w = RegistryWrite {
                    hive: if system { "HKLM" } else { "HKCU" }.into(),
                    key: registry_key(key),
                    value: path.to_string_lossy().into_owned(),
                };
                if !out.registry.contains(&w) {
                    out.registry.push(w);
                }
            }
        }
    }
    if !extra_ids.is_empty() {
        let doc = serde_json::json!({ "extension_ids": extra_ids });
        out.files.push(FileWrite {
            path: layout.state_dir.join("allowed-ids.json"),
            contents: serde_json::to_string_pretty(&doc).expect("json") + "\n",
            browsers: vec![],
            private: true,
        });
    }
    out
}
