//! Workload modules on disk: reading one and checking it is a module of the contract
//! this host speaks (`domain::workload`), and the registry of modules the user added
//! with `unobserved workload add` (`registry.rs`). The sink serves what was read here,
//! and the run records its SHA-256.

pub mod registry;

use crate::domain::workload::{contract_of, ModuleName, NotAModule, MAX_MODULE_BYTES};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A module read for a run: exactly the bytes the sink will serve.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub name: ModuleName,
    pub path: PathBuf,
    pub source: Arc<Vec<u8>>,
    pub sha256: String,
}

/// Why a module could not be read for a run.
#[derive(Debug, thiserror::Error)]
pub enum ModuleError {
    #[error("module {name}: {} does not exist", path.display())]
    Missing { name: ModuleName, path: PathBuf },
    #[error("module {name}: {} is not a file", path.display())]
    NotAFile { name: ModuleName, path: PathBuf },
    #[error("module {name}: cannot read {}: {why}", path.display())]
    Unreadable {
        name: ModuleName,
        path: PathBuf,
        why: std::io::Error,
    },
    #[error("module {name}: {} is not a workload module: {why}", path.display())]
    NotAModule {
        name: ModuleName,
        path: PathBuf,
        why: NotAModule,
    },
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA256, bytes))
}

/// Reads and checks the module `name` at `path`.
pub fn load(name: &ModuleName, path: &Path) -> Result<Loaded, ModuleError> {
    let (name, owned) = (name.clone(), path.to_path_buf());
    let meta = std::fs::metadata(path).map_err(|why| match why.kind() {
        std::io::ErrorKind::NotFound => ModuleError::Missing {
            name: name.clone(),
            path: owned.clone(),
        },
        _ => ModuleError::Unreadable {
            name: name.clone(),
            path: owned.clone(),
            why,
        },
    })?;
    if !meta.is_file() {
        return Err(ModuleError::NotAFile { name, path: owned });
    }
    if meta.len() > MAX_MODULE_BYTES {
        let why = NotAModule::TooLarge(meta.len());
        return Err(ModuleError::NotAModule {
            name,
            path: owned,
            why,
        });
    }
    let source = std::fs::read(path).map_err(|why| ModuleError::Unreadable {
        name: name.clone(),
        path: owned.clone(),
        why,
    })?;
    if let Err(why) = contract_of(&source) {
        return Err(ModuleError::NotAModule {
            name,
            path: owned,
            why,
        });
    }
    Ok(Loaded {
        sha256: sha256_hex(&source),
        source: Arc::new(source),
        name,
        path: owned,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> ModuleName {
        s.parse().unwrap()
    }

    #[test]
    fn a_module_is_read_with_its_digest_and_bad_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("a.mjs");
        let text = b"export const unobserved = 1;\nexport default async () => {};\n";
        std::fs::write(&good, text).unwrap();
        let m = load(&name("a"), &good).unwrap();
        assert_eq!(m.sha256, sha256_hex(text));
        assert_eq!(&m.source[..], text);
        let missing = dir.path().join("nope.mjs");
        assert!(matches!(
            load(&name("a"), &missing),
            Err(ModuleError::Missing { .. })
        ));
        assert!(matches!(
            load(&name("a"), dir.path()),
            Err(ModuleError::NotAFile { .. })
        ));
        let cjs = dir.path().join("c.js");
        std::fs::write(&cjs, "module.exports = function () {}").unwrap();
        let err = load(&name("a"), &cjs).unwrap_err();
        assert!(
            matches!(
                err,
                ModuleError::NotAModule {
                    why: NotAModule::NoExport,
                    ..
                }
            ),
            "{err}"
        );
    }
}
