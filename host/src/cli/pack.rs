//! `unobserved pack`: one package per browser family from the embedded extension tree.
//! Each is written unpacked (to load by hand) and zipped (for a store or a file install).

use super::args::PackArgs;
use crate::platform::extension_files::{self, Family};
use anyhow::Result;
use std::path::Path;

/// A package `pack` writes: its folder name, family, control flag, archive suffix, and
/// what a person does with it.
struct Package {
    name: &'static str,
    family: Family,
    control: bool,
    archive: &'static str,
    use_it: &'static str,
}

const PACKAGES: [Package; 3] = [
    Package {
        name: "chromium",
        family: Family::Chromium,
        control: false,
        archive: "chromium.zip",
        use_it: "Chrome, Edge, Brave, Chromium: chrome://extensions > Developer mode > Load unpacked > this folder. The .zip is what the Chrome Web Store and Edge Add-ons take.",
    },
    Package {
        name: "firefox",
        family: Family::Firefox,
        control: false,
        archive: "firefox-unsigned.xpi",
        use_it: "Firefox: about:debugging > This Firefox > Load Temporary Add-on > this folder's manifest.json (lasts until Firefox restarts). The .xpi is UNSIGNED: ESR, Developer Edition and Nightly install it after about:config xpinstall.signatures.required = false; release Firefox needs it signed first (web-ext sign --channel unlisted, see the README).",
    },
    Package {
        name: "chromium-control",
        family: Family::Chromium,
        control: true,
        archive: "chromium-control.zip",
        use_it: "Chromium family with the popup's Control button: load it like the chromium folder. It asks for the debugger permission at install, and Chromium warns that it can \"access the page debugger backend\": Unobserved uses it only to ask whether a debugger is attached and, when you click Control, to attach its own.",
    },
];

pub fn execute(a: PackArgs) -> Result<i32> {
    std::fs::create_dir_all(&a.out)?;
    let version = extension_files::version();
    for package in PACKAGES.iter().filter(|p| a.with_control || !p.control) {
        let (folder, archive) = write(&a.out, &version, package)?;
        println!("{}", folder.display());
        println!("{}", archive.display());
        eprintln!("  {}\n", package.use_it);
    }
    Ok(super::exit::OK)
}

fn write(
    out: &Path,
    version: &str,
    p: &Package,
) -> Result<(std::path::PathBuf, std::path::PathBuf)> {
    let folder = out.join(p.name);
    // A fresh folder: a file left from an older version would ship in the archive.
    let _ = std::fs::remove_dir_all(&folder);
    extension_files::write_package(&folder, p.family, p.control)?;
    let archive = out.join(format!("unobserved-{version}-{}", p.archive));
    extension_files::zip_dir(&folder, &archive)?;
    Ok((folder, archive))
}
