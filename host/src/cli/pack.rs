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
    Ok(super::exit::OK)
}
