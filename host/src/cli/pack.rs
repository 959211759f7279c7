//! `unobserved pack`: store packages from the embedded extension tree.

use super::args::PackArgs;
use crate::extension_files;
use anyhow::Result;

pub fn execute(a: PackArgs) -> Result<i32> {
    std::fs::create_dir_all(&a.out)?;
    let version = extension_files::version();
    // Chrome Web Store and Edge Add-ons take a .zip; addons.mozilla.org takes the same
    // archive named .xpi. Both hold only the shipped files.
    for name in [
        format!("unobserved-{version}-chromium.zip"),
        format!("unobserved-{version}-firefox.xpi"),
    ] {
        let path = a.out.join(name);
        extension_files::write_zip(&path)?;
        println!("{}", path.display());
    }
    if a.with_control {
        // Unpacked (for Load unpacked) and zipped, both with `debugger` required.
        let unpacked = a.out.join("chromium-control");
        let _ = std::fs::remove_dir_all(&unpacked);
        extension_files::write_tree(&unpacked)?;
        extension_files::grant_permission(&unpacked, "debugger")?;
        let zip = a
            .out
            .join(format!("unobserved-{version}-chromium-control.zip"));
        extension_files::zip_dir(&unpacked, &zip)?;
        println!("{}", unpacked.display());
        println!("{}", zip.display());
        eprintln!("the control build asks for the debugger permission at install: Chromium warns that it can \"access the page debugger backend\". Unobserved uses it only to check whether a debugger is attached and, when you click Control, to attach its own.");
    }
    Ok(super::exit::OK)
}
