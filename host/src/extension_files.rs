//! The extension source tree, embedded at build time. One copy serves three uses: the
//! sink serves `bench/` and `lib/` as an ordinary web page, `unobserved run` writes the
//! tree into a throwaway profile, and `unobserved pack` zips it for the stores.

use anyhow::{Context, Result};
use include_dir::{include_dir, Dir, DirEntry};
use std::io::Write;
use std::path::Path;

static TREE: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../extension");

pub use unobserved_installer::ids::{CHROMIUM_ID, GECKO_ID};

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

/// Every shipped file as (relative path, bytes), in a stable order.
pub fn files() -> Vec<(String, &'static [u8])> {
    let mut out = Vec::new();
    collect(&TREE, &mut out);
    out.retain(|(p, _)| shipped(p));
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

/// Moves `permission` from optional to required in a written copy of the tree. The key
/// is unchanged, so the id stays the same.
pub fn grant_permission(tree: &Path, permission: &str) -> Result<()> {
    edit_manifest(tree, |manifest| {
        if let Some(optional) = manifest["optional_permissions"].as_array_mut() {
            optional.retain(|p| p != permission);
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

/// Zips the shipped files: the same archive is a Chrome Web Store .zip and an AMO .xpi.
pub fn write_zip(dest: &Path) -> Result<()> {
    let file =
        std::fs::File::create(dest).with_context(|| format!("cannot create {}", dest.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (rel, bytes) in files() {
        zip.start_file(rel, opts)?;
        zip.write_all(bytes)?;
    }
    zip.finish()?;
    Ok(())
}

/// Zips a written (and perhaps edited) copy of the tree, e.g. the control build.
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
    fn only_the_page_folders_are_served() {
        assert!(web_file("bench/index.html").is_some());
        assert!(web_file("manifest.json").is_none());
        assert!(web_file("background/background.js").is_none());
        assert!(web_file("bench/../manifest.json").is_none());
    }

    #[test]
    fn embedded_manifest_ids_match_the_constants() {
        let manifest: serde_json::Value =
            serde_json::from_slice(TREE.get_file("manifest.json").unwrap().contents()).unwrap();
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
