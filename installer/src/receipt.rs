//! The install receipt: what `install` wrote, so `uninstall` can undo exactly that.
//! It is a file anyone with the user's rights can edit, so `uninstall` believes it
//! only where `roots.rs` and the hashes here agree.

use crate::action::KeptBecause;
use crate::ids::HOST_NAME;
use crate::layout::Layout;
use crate::plan::{RegistryWrite, TrustWrite};
use anyhow::{Context, Result};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::path::{Path, PathBuf};

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Receipt {
    /// Every file written (manifests, `allowed-ids.json`, the local CA's files).
    pub files: Vec<Recorded>,
    pub dirs_created: Vec<PathBuf>,
    pub registry: Vec<RegistryWrite>,
    pub binary: Option<Recorded>,
    /// Foreign manifests replaced under `--force`, put back by uninstall.
    pub backups: Vec<Backup>,
    /// Registry values that another program had set, replaced under `--force`:
    /// (the key as written by us, its previous value), restored by uninstall.
    #[serde(default)]
    pub registry_backups: Vec<(RegistryWrite, String)>,
    /// Roots added to NSS databases (`--local-https`), removed by uninstall.
    #[serde(default)]
    pub trust: Vec<TrustWrite>,
    /// `--profile` folders manifests were written into: uninstall takes no
    /// `--profile`, so it learns them here (and believes only our manifest in them).
    #[serde(default)]
    pub profiles: Vec<PathBuf>,
}

impl Receipt {
    pub fn load(layout: &Layout) -> Result<Receipt> {
        match std::fs::read(layout.receipt_path()) {
            Ok(b) => serde_json::from_slice(&b)
                .with_context(|| format!("{} is damaged", layout.receipt_path().display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Receipt::default()),
            Err(e) => Err(e.into()),
        }
    }

    pub fn save(&self, layout: &Layout) -> Result<()> {
        let text = serde_json::to_string_pretty(self)? + "\n";
        crate::files::write_file(&layout.receipt_path(), text.as_bytes(), 0o644)
    }

    pub fn owns(&self, path: &Path) -> bool {
        self.files.iter().any(|f| f.path() == path)
    }

    /// Records `path` as holding `bytes`, in place of any older entry for it.
    pub fn record_file(&mut self, path: &Path, bytes: &[u8]) {
        self.files.retain(|old| old.path() != path);
        self.files.push(Recorded::of(path, bytes));
    }
}

/// A file install wrote, and how uninstall can tell it is still that file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Recorded {
    /// This version: the SHA-256 of the bytes written (never the bytes: one of these
    /// files is the local CA's key, and the receipt is readable by others).
    Hashed { path: PathBuf, sha256: Sha256 },
    /// Receipts before hashes kept a file's whole text.
    LegacyText { path: PathBuf, contents: String },
    /// Receipts before hashes named the binary by its path alone.
    LegacyPath(PathBuf),
}

impl Recorded {
    pub fn of(path: &Path, bytes: &[u8]) -> Recorded {
        Recorded::Hashed {
            path: path.to_owned(),
            sha256: Sha256::of(bytes),
        }
    }

    pub fn path(&self) -> &Path {
        match self {
            Recorded::Hashed { path, .. }
            | Recorded::LegacyText { path, .. }
            | Recorded::LegacyPath(path) => path,
        }
    }

    /// Whether `bytes`, found at the path now, are what install wrote there. An old
    /// receipt proves less, so less of what it lists is deleted: only a text that is
    /// still our own host manifest, and a binary only at the layout's own place.
    pub fn proves(&self, bytes: &[u8], binary_dest: &Path) -> Result<(), KeptBecause> {
        match self {
            Recorded::Hashed { sha256, .. } if *sha256 == Sha256::of(bytes) => Ok(()),
            Recorded::LegacyText { contents, .. } if contents.as_bytes() == bytes => {
                is_host_manifest(bytes)
                    .then_some(())
                    .ok_or(KeptBecause::LegacyReceipt)
            }
            Recorded::LegacyPath(path) if path == binary_dest => Ok(()),
            Recorded::LegacyPath(_) => Err(KeptBecause::LegacyReceipt),
            Recorded::Hashed { .. } | Recorded::LegacyText { .. } => Err(KeptBecause::Changed),
        }
    }
}

/// JSON naming this host: what every manifest install writes says first.
pub fn is_host_manifest(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(bytes).is_ok_and(|doc| doc["name"] == HOST_NAME)
}

/// What stood at a manifest's place before `--force` replaced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Backup {
    /// A file, copied into the data dir's `backups/`.
    Copy {
        original: PathBuf,
        saved: PathBuf,
        sha256: Sha256,
    },
    /// A symbolic link: where it pointed, so it comes back a link, not a copy.
    Link { original: PathBuf, target: PathBuf },
    /// Receipts before hashes: (original, saved copy).
    Legacy(PathBuf, PathBuf),
}

impl Backup {
    pub fn original(&self) -> &Path {
        match self {
            Backup::Copy { original, .. }
            | Backup::Link { original, .. }
            | Backup::Legacy(original, _) => original,
        }
    }
}

/// A SHA-256 digest, kept in the receipt as 64 hex digits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Sha256(pub [u8; 32]);

impl Sha256 {
    pub fn of(bytes: &[u8]) -> Sha256 {
        use sha2::Digest;
        Sha256(sha2::Sha256::digest(bytes).into())
    }

    fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Debug for Sha256 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.hex())
    }
}

impl Serialize for Sha256 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.hex())
    }
}

impl<'de> Deserialize<'de> for Sha256 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Sha256, D::Error> {
        let text = String::deserialize(d)?;
        let bad = || serde::de::Error::custom("a SHA-256 is 64 hex digits");
        if text.len() != 64 || !text.is_ascii() {
            return Err(bad());
        }
        let mut out = [0u8; 32];
        for (byte, pair) in out.iter_mut().zip(text.as_bytes().chunks(2)) {
            let pair = std::str::from_utf8(pair).map_err(|_| bad())?;
            *byte = u8::from_str_radix(pair, 16).map_err(|_| bad())?;
        }
        Ok(Sha256(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_survives_the_receipt_and_a_bad_one_is_refused() {
        let d = Sha256::of(b"hello world");
        let text = serde_json::to_string(&d).unwrap();
        assert_eq!(
            text,
            "\"b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9\""
        );
        assert_eq!(serde_json::from_str::<Sha256>(&text).unwrap(), d);
        assert!(serde_json::from_str::<Sha256>("\"+4d27b99\"").is_err());
    }

    #[test]
    fn an_old_receipt_still_loads() {
        let old = r#"{"files":[{"path":"/h/m.json","contents":"{}","browsers":["chrome"],"private":false}],
            "dirs_created":[],"registry":[],"binary":"/h/bin/unobserved","backups":[["/a","/b"]]}"#;
        let r: Receipt = serde_json::from_str(old).unwrap();
        assert!(matches!(r.files[0], Recorded::LegacyText { .. }));
        assert_eq!(
            r.binary,
            Some(Recorded::LegacyPath("/h/bin/unobserved".into()))
        );
        assert_eq!(r.backups, [Backup::Legacy("/a".into(), "/b".into())]);
    }

    #[test]
    fn an_old_receipt_proves_only_our_manifest_and_the_binary_at_its_place() {
        let ours = br#"{"name":"org.unobserved.host"}"#;
        let text = |c: &[u8]| Recorded::LegacyText {
            path: "/m".into(),
            contents: String::from_utf8(c.to_vec()).unwrap(),
        };
        let bin = Path::new("/d/bin/unobserved");
        assert_eq!(text(ours).proves(ours, bin), Ok(()));
        assert_eq!(text(ours).proves(b"{}", bin), Err(KeptBecause::Changed));
        assert_eq!(
            text(b"key").proves(b"key", bin),
            Err(KeptBecause::LegacyReceipt)
        );
        assert_eq!(Recorded::LegacyPath(bin.into()).proves(b"", bin), Ok(()));
        assert_eq!(
            Recorded::LegacyPath("/tmp/victim".into()).proves(b"", bin),
            Err(KeptBecause::LegacyReceipt)
        );
    }
}
