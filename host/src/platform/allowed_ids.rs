//! Which extensions may start the host: the ids the extension ships with, plus any
//! store-assigned ids the user added with `unobserved install --extension-id`.

use crate::platform::extension_files::{CHROMIUM_ID, GECKO_ID};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "allowed-ids.json";

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ExtraIds {
    pub extension_ids: Vec<String>,
}

pub fn path_in(state_dir: &Path) -> PathBuf {
    state_dir.join(FILE_NAME)
}

pub fn allowed(state_dir: &Path) -> Vec<String> {
    let mut ids = vec![CHROMIUM_ID.to_owned(), GECKO_ID.to_owned()];
    let path = path_in(state_dir);
    match std::fs::read(&path) {
        Ok(bytes) => match serde_json::from_slice::<ExtraIds>(&bytes) {
            Ok(extra) => ids.extend(extra.extension_ids),
            Err(e) => log::warn!(
                "{} is not valid ({e}); only the built-in ids are allowed",
                path.display()
            ),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => log::warn!("cannot read {}: {e}", path.display()),
    }
    ids
}
