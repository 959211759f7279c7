//! The modules a user registered with `unobserved workload add NAME PATH`, so the popup
//! and Options can offer them as arms: `workloads.json` in the state dir, each module's
//! name, absolute path, and the SHA-256 and size its file had when added. A run reads the
//! file again; one that changed since is run and recorded with its new SHA-256 beside
//! the registered one (`ModuleRef::registered_sha256`), never silently as the same code.

use super::{load, Loaded, ModuleError};
use crate::domain::workload::{ModuleName, ModuleRef};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "workloads.json";

/// Modules one registry holds.
pub const MAX_REGISTERED: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registered {
    pub name: ModuleName,
    pub path: PathBuf,
    pub sha256: String,
    pub bytes: u64,
    pub added_at: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    modules: Vec<Registered>,
}

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("{} is not a registry of workload modules ({why}); fix or remove it, nothing was changed", path.display())]
    Corrupt { path: PathBuf, why: String },
    #[error("cannot {what} {}: {why}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        why: std::io::Error,
    },
    #[error("a module named {0} is registered already: `unobserved workload remove {0}` first")]
    Taken(ModuleName),
    #[error("no module named {0} is registered (`unobserved workload list` shows them)")]
    Unknown(ModuleName),
    #[error("{MAX_REGISTERED} modules are registered already; remove one first")]
    Full,
    #[error(transparent)]
    Module(#[from] ModuleError),
}

impl RegistryError {
    /// Whether this is the user's mistake (exit 2) rather than a failure (exit 1).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            RegistryError::Taken(_)
                | RegistryError::Unknown(_)
                | RegistryError::Full
                | RegistryError::Module(_)
        )
    }
}

/// How a registered module's file is now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum Now {
    Unchanged,
    Changed { sha256: String },
    Unusable { why: String },
}

pub struct Registry {
    path: PathBuf,
}

impl Registry {
    pub fn in_dir(state_dir: &Path) -> Registry {
        Registry {
            path: state_dir.join(FILE_NAME),
        }
    }

    fn read(&self) -> Result<File, RegistryError> {
        match crate::platform::state::open_private_read(&self.path) {
            Ok(f) => serde_json::from_reader(std::io::BufReader::new(f)).map_err(|e| {
                RegistryError::Corrupt {
                    path: self.path.clone(),
                    why: e.to_string(),
                }
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(File::default()),
            Err(why) => Err(RegistryError::Io {
                what: "read",
                path: self.path.clone(),
                why,
            }),
        }
    }

    /// Writes the whole file anew and renames it into place: a crash leaves the old one.
    fn write(&self, file: &File) -> Result<(), RegistryError> {
        let io = |what, why| RegistryError::Io {
            what,
            path: self.path.clone(),
            why,
        };
        let dir = self.path.parent().expect("a file in the state dir");
        crate::platform::state::ensure_private_dir(dir)
            .map_err(|e| io("create the folder of", std::io::Error::other(e.to_string())))?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| io("write", e))?;
        serde_json::to_writer_pretty(&mut tmp, file).map_err(|e| io("write", e.into()))?;
        tmp.as_file().sync_all().map_err(|e| io("write", e))?;
        tmp.persist(&self.path).map_err(|e| io("write", e.error))?;
        Ok(())
    }

    pub fn list(&self) -> Result<Vec<Registered>, RegistryError> {
        Ok(self.read()?.modules)
    }

    /// Registers `path` as `name`, after checking it is a module.
    pub fn add(&self, name: &ModuleName, path: &Path) -> Result<Registered, RegistryError> {
        let mut file = self.read()?;
        if file.modules.iter().any(|m| m.name == *name) {
            return Err(RegistryError::Taken(name.clone()));
        }
        if file.modules.len() >= MAX_REGISTERED {
            return Err(RegistryError::Full);
        }
        let loaded = load(name, path)?;
        let absolute = std::fs::canonicalize(path).map_err(|why| RegistryError::Io {
            what: "resolve",
            path: path.to_path_buf(),
            why,
        })?;
        let entry = Registered {
            name: name.clone(),
            path: absolute,
            sha256: loaded.sha256,
            bytes: loaded.source.len() as u64,
            added_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        };
        file.modules.push(entry.clone());
        self.write(&file)?;
        Ok(entry)
    }

    pub fn remove(&self, name: &ModuleName) -> Result<Registered, RegistryError> {
        let mut file = self.read()?;
        let at = file.modules.iter().position(|m| m.name == *name);
        let removed = file
            .modules
            .remove(at.ok_or_else(|| RegistryError::Unknown(name.clone()))?);
        self.write(&file)?;
        Ok(removed)
    }

    /// The registered module `name`, read for a run, and what the run records of it.
    pub fn load(&self, name: &ModuleName) -> Result<(Loaded, ModuleRef), RegistryError> {
        let file = self.read()?;
        let entry = file.modules.iter().find(|m| m.name == *name);
        let entry = entry.ok_or_else(|| RegistryError::Unknown(name.clone()))?;
        let loaded = load(name, &entry.path)?;
        let record = ModuleRef {
            registered_sha256: (loaded.sha256 != entry.sha256).then(|| entry.sha256.clone()),
            ..record_of(&loaded)
        };
        Ok((loaded, record))
    }
}

/// What a run records of a module it read.
pub fn record_of(loaded: &Loaded) -> ModuleRef {
    ModuleRef {
        name: loaded.name.clone(),
        sha256: Some(loaded.sha256.clone()),
        bytes: Some(loaded.source.len() as u64),
        registered_sha256: None,
    }
}

/// How `entry`'s file is now.
pub fn now(entry: &Registered) -> Now {
    match load(&entry.name, &entry.path) {
        Ok(l) if l.sha256 == entry.sha256 => Now::Unchanged,
        Ok(l) => Now::Changed { sha256: l.sha256 },
        Err(e) => Now::Unusable { why: e.to_string() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = "export const unobserved = 1;\nexport default async () => {};\n";

    fn name(s: &str) -> ModuleName {
        s.parse().unwrap()
    }

    #[test]
    fn add_list_load_and_remove() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let file = dir.path().join("up.mjs");
        std::fs::write(&file, MODULE).unwrap();
        let r = Registry::in_dir(&state);
        assert!(r.list().unwrap().is_empty());
        let added = r.add(&name("up"), &file).unwrap();
        assert!(added.path.is_absolute());
        assert!(matches!(
            r.add(&name("up"), &file),
            Err(RegistryError::Taken(_))
        ));
        assert_eq!(r.list().unwrap(), vec![added.clone()]);
        let (_, record) = r.load(&name("up")).unwrap();
        assert_eq!(record.registered_sha256, None);
        assert_eq!(now(&added), Now::Unchanged);

        std::fs::write(&file, format!("{MODULE}// v2\n")).unwrap();
        let (loaded, record) = r.load(&name("up")).unwrap();
        assert_eq!(record.sha256.as_deref(), Some(loaded.sha256.as_str()));
        assert_eq!(
            record.registered_sha256,
            Some(added.sha256.clone()),
            "the change is on record"
        );
        assert!(matches!(now(&added), Now::Changed { .. }));

        std::fs::remove_file(&file).unwrap();
        assert!(matches!(now(&added), Now::Unusable { .. }));
        assert!(matches!(r.load(&name("up")), Err(RegistryError::Module(_))));
        r.remove(&name("up")).unwrap();
        assert!(matches!(
            r.remove(&name("up")),
            Err(RegistryError::Unknown(_))
        ));
        assert!(r.list().unwrap().is_empty());
    }

    #[test]
    fn a_bad_file_is_not_registered_and_a_corrupt_registry_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let r = Registry::in_dir(dir.path());
        let png = dir.path().join("x.png");
        std::fs::write(&png, [0x89, b'P', b'N', b'G', 0xff]).unwrap();
        let err = r.add(&name("x"), &png).unwrap_err();
        assert!(err.is_usage(), "{err}");
        assert!(r.list().unwrap().is_empty());
        std::fs::write(dir.path().join(FILE_NAME), "{not json").unwrap();
        let good = dir.path().join("g.mjs");
        std::fs::write(&good, MODULE).unwrap();
        let err = r.add(&name("g"), &good).unwrap_err();
        assert!(matches!(err, RegistryError::Corrupt { .. }), "{err}");
        assert!(!err.is_usage());
        let kept = std::fs::read_to_string(dir.path().join(FILE_NAME)).unwrap();
        assert_eq!(kept, "{not json", "nothing lost");
    }
}
