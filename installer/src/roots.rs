//! The places install writes to, and so the only places uninstall deletes from,
//! whatever its receipt lists. Paths are compared canonicalised, so neither `..` nor a
//! symlinked folder leads out of them.

use crate::action::KeptBecause;
use crate::browsers::BROWSERS;
use crate::ids::{manifest_file, registry_key};
use crate::layout::Layout;
use crate::plan::RegistryWrite;
use std::path::{Component, Path, PathBuf};

/// How much of a folder is ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The data dir or the state dir: all of it.
    Own,
    /// A browser's manifest folder, shared with other programs: only our manifest.
    Shared,
}

#[derive(Debug)]
pub struct Roots {
    /// The data dir and the state dir.
    own: Vec<PathBuf>,
    /// Every browser's manifest folders, user and system, and the `--profile` ones.
    shared: Vec<PathBuf>,
    /// Where `--force` keeps the files it replaced.
    backups: Option<PathBuf>,
    /// Home and the system prefix: folders install created on the way to a root lie
    /// below them, and those may go too when empty.
    bases: Vec<PathBuf>,
    /// Our key under each browser's registry key.
    keys: Vec<String>,
    /// The binary's place, the only one an old receipt's binary path is believed at.
    pub binary_dest: PathBuf,
}

impl Roots {
    /// Resolved now, before anything is removed; roots that do not exist hold nothing.
    pub fn new(layout: &Layout, profiles: &[PathBuf]) -> Roots {
        let plain = Layout {
            chromium_profile: None,
            ..layout.clone()
        };
        let shared = BROWSERS
            .iter()
            .flat_map(|b| [false, true].map(|system| plain.manifest_dir(b, system)))
            .chain(
                profiles
                    .iter()
                    .chain(&layout.chromium_profile)
                    .map(|p| Layout::profile_manifest_dir(p)),
            );
        Roots {
            own: canonical([&layout.data_dir, &layout.state_dir].map(PathBuf::from)),
            shared: canonical(shared),
            backups: std::fs::canonicalize(layout.data_dir.join("backups")).ok(),
            bases: canonical([&layout.home, &layout.system_root].map(PathBuf::from)),
            keys: BROWSERS
                .iter()
                .flat_map(|b| b.windows_keys)
                .map(|k| registry_key(k))
                .collect(),
            binary_dest: layout.binary_dest(),
        }
    }

    /// How much of the folder holding `path` is ours; None if that folder is gone.
    pub fn place_of(&self, path: &Path) -> Result<Option<Place>, KeptBecause> {
        let Some(parent) = canonical_parent(path)? else {
            return Ok(None);
        };
        if self.own.iter().any(|r| parent.starts_with(r)) {
            Ok(Some(Place::Own))
        } else if self.shared.contains(&parent)
            && path.file_name().and_then(|n| n.to_str()) == Some(&manifest_file())
        {
            Ok(Some(Place::Shared))
        } else {
            Err(KeptBecause::OutsideRoots)
        }
    }

    /// A saved copy `--force` made: directly in the data dir's `backups/`.
    pub fn is_backup(&self, saved: &Path) -> bool {
        canonical_parent(saved).is_ok_and(|p| p.is_some() && p == self.backups)
    }

    /// A folder install may have created: in a root of its own, a manifest folder, or
    /// one on the way to either below home or the prefix. `dir` must be a real folder.
    pub fn holds_dir(&self, dir: &Path) -> bool {
        let dir = Some(dir).filter(|d| d.is_absolute() && plain(d));
        let Some(dir) = dir.and_then(|d| std::fs::canonicalize(d).ok()) else {
            return false;
        };
        let on_the_way = |root: &PathBuf| {
            root.starts_with(&dir) && self.bases.iter().any(|b| dir.starts_with(b) && dir != *b)
        };
        self.own.iter().any(|r| dir.starts_with(r) || on_the_way(r))
            || self.shared.iter().any(|r| *r == dir || on_the_way(r))
    }

    pub fn holds_key(&self, r: &RegistryWrite) -> bool {
        ["HKCU", "HKLM"].contains(&r.hive.as_str()) && self.keys.contains(&r.key)
    }
}

/// The canonical folder holding `path`; refused for a relative path or one with `.`
/// or `..` in it, None when the folder does not exist.
fn canonical_parent(path: &Path) -> Result<Option<PathBuf>, KeptBecause> {
    let parent = path
        .parent()
        .filter(|_| path.is_absolute() && plain(path) && path.file_name().is_some())
        .ok_or(KeptBecause::OutsideRoots)?;
    match std::fs::canonicalize(parent) {
        Ok(p) => Ok(Some(p)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(_) => Err(KeptBecause::OutsideRoots),
    }
}

/// No `.` or `..`: a path that says where it is without being resolved.
fn plain(path: &Path) -> bool {
    path.components()
        .all(|c| !matches!(c, Component::CurDir | Component::ParentDir))
}

fn canonical(paths: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    paths
        .into_iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect()
}
