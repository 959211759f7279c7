//! The extension source tree, embedded at build time. One copy serves three uses: the
//! sink serves `bench/` and `lib/` as an ordinary web page, `unobserved run` writes the
//! tree into a throwaway profile, and `unobserved pack` zips it for the stores.

use anyhow::{Context, Result};
use include_dir::{include_dir, Dir, DirEntry};
use std::io::Write;
use std::path::Path;

static TREE: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../extension");

pub use unobserved_installer::ids::{CHROMIUM_ID, GECKO_ID};
pub use unobserved_installer::manifest::Family;

/// The one source manifest carries both families' fields; each browser warns about the
/// other's (Chromium: `background.scripts`; Firefox: `key`). Each package drops the
/// fields only the other family reads. This table is the whole difference.
fn foreign_fields(family: Family) -> &'static [&'static [&'static str]] {
    match family {
        Family::Chromium => &[&["browser_specific_settings"], &["background", "scripts"]],
        Family::Firefox => &[&["key"], &["background", "service_worker"]],
    }
}

/// The source manifest as `family` should see it.
pub fn manifest_for(source: &serde_json::Value, family: Family) -> serde_json::Value {
    let mut manifest = source.clone();
    for path in foreign_fields(family) {
        let (last, parents) = path.split_last().expect("a field path is never empty");
        let mut node = &mut manifest;
        for key in parents {
            node = &mut node[*key];
        }
        if let Some(object) = node.as_object_mut() {
            object.remove(*last);
        }
    }
    manifest
}

/// Turns a written extension tree into `family`'s package: its manifest without the
/// other family's fields and, for the control build, `debugger` required (Chromium
/// will not grant it later, and no click can grant it in a throwaway profile).
pub fn make_package(tree: &Path, family: Family, control: bool) -> Result<()> {
    edit_manifest(tree, |manifest| {
        *manifest = manifest_for(manifest, family);
        Ok(())
    })?;
    if control {
        grant_permission(tree, "debugger")?;
    }
    Ok(())
}

/// One installable package from the embedded tree.
pub fn write_package(dest: &Path, family: Family, control: bool) -> Result<()> {
    write_tree(dest)?;
    make_package(dest, family, control)
}

/// Only the shipped files: tests, node tooling and dotfiles stay out of packages.
fn shipped(path: &str) -> bool {
    let first = path.split('/').next().unwrap_or("");
    !(first == "tests"
        || first == "node_modules"
        || path.split('/').any(|p| p.starts_with('.'))
        || path.ends_with(".test.js")
        || first == "package.json"
        || first == "package-lock.json"
        || path.ends_with(".md"))
}

/// Files the sink serves to the benchmark page on its own origin but no browser package
/// carries: the import of a user's workload module from the sink (stores refuse packages
/// that load code from elsewhere; an extension page could not run it anyway).
const SINK_ONLY: &[&str] = &["bench/module-import.js"];

/// Every shipped file as (relative path, bytes), in a stable order.
pub fn files() -> Vec<(String, &'static [u8])> {
    let mut out = Vec::new();
    collect(&TREE, &mut out);
    out.retain(|(p, _)| shipped(p) && !SINK_ONLY.contains(&p.as_str()));
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn collect(dir: &'static Dir<'static>, out: &mut Vec<(String, &'static [u8])>) {
    for entry in dir.entries() {
        match entry {
            DirEntry::Dir(d) => collect(d, out),
            DirEntry::File(f) => {
                out.push((f.path().to_string_lossy().replace('\\', "/"), f.contents()))
            }
        }
    }
}

/// A file the sink may serve to the benchmark page: only `bench/` and `lib/`.
pub fn web_file(path: &str) -> Option<&'static [u8]> {
    let servable = path.starts_with("bench/") || path.starts_with("lib/");
    if !servable || path.contains("..") || !shipped(path) {
        return None;
    }
    TREE.get_file(path).map(|f| f.contents())
}

pub fn version() -> String {
    TREE.get_file("manifest.json")
        .and_then(|f| serde_json::from_slice::<serde_json::Value>(f.contents()).ok())
        .and_then(|m| m["version"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

/// Makes `permission` required in a written copy of the tree (moving it out of
/// `optional_permissions` if a custom tree lists it there). The key
/// is unchanged, so the id stays the same.
pub fn grant_permission(tree: &Path, permission: &str) -> Result<()> {
    edit_manifest(tree, |manifest| {
        match manifest["optional_permissions"].as_array_mut() {
            Some(optional) => optional.retain(|p| p != permission),
            // Chromium 156 refuses a manifest that requires `debugger` and has no
            // optional_permissions key at all ("Invalid value for 'permissions'");
            // an empty list is accepted. The control test in tests/browsers.rs loads it.
            None => manifest["optional_permissions"] = serde_json::json!([]),
        }
        manifest["permissions"]
            .as_array_mut()
            .context("manifest has no permissions list")?
            .push(permission.into());
        Ok(())
    })
}

/// Adds a host permission to a written copy of the tree.
pub fn grant_host_permission(tree: &Path, pattern: &str) -> Result<()> {
    edit_manifest(tree, |manifest| {
        manifest["host_permissions"]
            .as_array_mut()
            .context("manifest has no host_permissions")?
            .push(pattern.into());
        Ok(())
    })
}

/// Reads a written copy's manifest.json, changes it, writes it back.
fn edit_manifest(
    tree: &Path,
    change: impl FnOnce(&mut serde_json::Value) -> Result<()>,
) -> Result<()> {
    let path = tree.join("manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&path)?)?;
    change(&mut manifest)?;
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest)?)?;
    Ok(())
}

pub fn write_tree(dest: &Path) -> Result<()> {
    for (rel, bytes) in files() {
        let path = dest.join(&rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Zips a written (and perhaps edited) package tree.
pub fn zip_dir(dir: &Path, dest: &Path) -> Result<()> {
    let file =
        std::fs::File::create(dest).with_context(|| format!("cannot create {}", dest.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let mut files = files_under(dir)?;
    files.sort();
    for path in files {
        let rel = path.strip_prefix(dir)?.to_string_lossy().replace('\\', "/");
        zip.start_file(rel, opts)?;
        zip.write_all(&std::fs::read(&path)?)?;
    }
    zip.finish()?;
    Ok(())
}

/// Every file below `dir`, at any depth.
pub fn files_under(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            out.extend(files_under(&p)?)
        } else {
            out.push(p)
        }
    }
    Ok(out)
}

pub fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") | Some("mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_leave_out_tests_and_dev_files() {
        let names: Vec<_> = files().into_iter().map(|(p, _)| p).collect();
        assert!(names.contains(&"manifest.json".to_string()));
        assert!(names.iter().any(|n| n.starts_with("bench/")));
        assert!(
            names
                .iter()
                .all(|n| !n.starts_with("tests/") && !n.contains("/.") && !n.ends_with(".md")),
            "{names:?}"
        );
    }

    #[test]
    fn the_module_import_is_served_by_the_sink_and_in_no_package() {
        let names: Vec<_> = files().into_iter().map(|(p, _)| p).collect();
        for path in SINK_ONLY {
            assert!(!names.contains(&path.to_string()), "{path} is packaged");
            assert!(web_file(path).is_some(), "the sink cannot serve {path}");
        }
    }

    fn source_manifest() -> serde_json::Value {
        serde_json::from_slice(TREE.get_file("manifest.json").unwrap().contents()).unwrap()
    }

    #[test]
    fn each_family_gets_a_manifest_without_the_other_familys_fields() {
        let source = source_manifest();
        let chromium = manifest_for(&source, Family::Chromium);
        assert!(chromium.get("browser_specific_settings").is_none());
        assert!(chromium["background"].get("scripts").is_none());
        assert_eq!(
            chromium["key"], source["key"],
            "the key fixes the Chromium id"
        );
        assert!(chromium["background"]["service_worker"].is_string());

        let firefox = manifest_for(&source, Family::Firefox);
        assert!(firefox.get("key").is_none());
        assert!(firefox["background"].get("service_worker").is_none());
        assert_eq!(
            firefox["browser_specific_settings"]["gecko"]["id"],
            GECKO_ID
        );
        assert!(firefox["background"]["scripts"].is_array());

        // Everything else is the same in both.
        let rest = |mut m: serde_json::Value| {
            for k in ["key", "browser_specific_settings", "background"] {
                m.as_object_mut().unwrap().remove(k);
            }
            m
        };
        assert_eq!(rest(chromium), rest(firefox));
    }

    #[test]
    fn no_package_lists_debugger_as_optional_and_only_the_control_build_requires_it() {
        let dir = tempfile::tempdir().unwrap();
        for (family, control) in [
            (Family::Chromium, false),
            (Family::Firefox, false),
            (Family::Chromium, true),
        ] {
            let tree = dir.path().join(format!("{family:?}-{control}"));
            write_package(&tree, family, control).unwrap();
            let m: serde_json::Value =
                serde_json::from_slice(&std::fs::read(tree.join("manifest.json")).unwrap())
                    .unwrap();
            let lists = |k: &str| {
                m[k].as_array()
                    .is_some_and(|l| l.iter().any(|p| p == "debugger"))
            };
            assert!(!lists("optional_permissions"), "{family:?}: {m}");
            assert_eq!(lists("permissions"), control, "{family:?}: {m}");
        }
    }

    #[test]
    fn only_the_page_folders_are_served() {
        assert!(web_file("bench/index.html").is_some());
        assert!(web_file("manifest.json").is_none());
        assert!(web_file("background/background.js").is_none());
        assert!(web_file("bench/../manifest.json").is_none());
    }

    #[test]
    fn embedded_manifest_ids_match_the_constants() {
        let manifest = source_manifest();
        assert_eq!(
            manifest["browser_specific_settings"]["gecko"]["id"],
            GECKO_ID
        );
        // The Chromium id is the first 32 hex digits of sha256(DER key), mapped 0-f -> a-p.
        use base64::Engine;
        let der = base64::engine::general_purpose::STANDARD
            .decode(manifest["key"].as_str().unwrap())
            .unwrap();
        let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&der));
        let id: String = digest[..32]
            .chars()
            .map(|c| (b'a' + c.to_digit(16).unwrap() as u8) as char)
            .collect();
        assert_eq!(id, CHROMIUM_ID);
    }
}
