//! Where things go on this machine. Tests build one over a temp HOME and prefix.

use crate::browsers::{Browser, Os};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Layout {
    pub os: Os,
    pub home: PathBuf,
    /// Prefix for system-wide paths: `/` normally, a temp dir in tests.
    pub system_root: PathBuf,
    /// Where the binary copy and the install receipt live.
    pub data_dir: PathBuf,
    /// The host's state dir (for `allowed-ids.json`).
    pub state_dir: PathBuf,
    /// Where Windows manifests are kept (the registry points at them).
    pub windows_manifest_dir: PathBuf,
    /// A Chromium-family profile started with its own `--user-data-dir`: such a browser
    /// reads `<profile>/NativeMessagingHosts/` and nothing under HOME (`--profile`).
    pub chromium_profile: Option<PathBuf>,
}

impl Layout {
    /// The real layout for the current user.
    pub fn current(state_dir: PathBuf, system: bool) -> anyhow::Result<Layout> {
        let home = dirs::home_dir()
            .ok_or_else(|| anyhow::anyhow!("cannot tell where your home directory is"))?;
        let os = Os::current();
        let data_dir = if system {
            match os {
                Os::Windows => PathBuf::from(
                    std::env::var_os("ProgramData").unwrap_or_else(|| "C:\\ProgramData".into()),
                )
                .join("unobserved"),
                Os::MacOs => PathBuf::from("/Library/Application Support/unobserved"),
                Os::Linux => PathBuf::from("/opt/unobserved"),
            }
        } else {
            dirs::data_local_dir()
                .unwrap_or_else(|| home.join(".local/share"))
                .join("unobserved")
        };
        Ok(Layout {
            os,
            windows_manifest_dir: data_dir.join("manifests"),
            home,
            system_root: PathBuf::from("/"),
            data_dir,
            state_dir,
            chromium_profile: None,
        })
    }

    /// The folder a browser reads manifests from (Linux and macOS).
    pub fn manifest_dir(&self, b: &Browser, system: bool) -> PathBuf {
        if let (Some(profile), crate::manifest::Family::Chromium, false) =
            (&self.chromium_profile, b.family, system)
        {
            if self.os != Os::Windows {
                return Layout::profile_manifest_dir(profile);
            }
        }
        match (self.os, system) {
            (Os::Linux, false) => self.home.join(b.linux_user),
            (Os::Linux, true) => self.under_root(b.linux_system),
            (Os::MacOs, false) => self.home.join(b.mac_user),
            (Os::MacOs, true) => self.under_root(b.mac_system),
            // On Windows the file's place is ours to choose; the registry points at it.
            // One file per family, so browsers that share a key agree on its value.
            (Os::Windows, _) => self.windows_manifest_dir.join(match b.family {
                crate::manifest::Family::Chromium => "chromium",
                crate::manifest::Family::Firefox => "firefox",
            }),
        }
    }

    /// Our manifest's path in that folder.
    pub fn manifest_path(&self, b: &Browser, system: bool) -> PathBuf {
        self.manifest_dir(b, system)
            .join(crate::ids::manifest_file())
    }

    /// Where a Chromium-family browser started with `--user-data-dir=profile` looks.
    pub fn profile_manifest_dir(profile: &Path) -> PathBuf {
        profile.join("NativeMessagingHosts")
    }

    fn under_root(&self, abs: &str) -> PathBuf {
        self.system_root.join(abs.trim_start_matches('/'))
    }

    pub fn receipt_path(&self) -> PathBuf {
        self.data_dir.join("install-receipt.json")
    }

    pub fn binary_dest(&self) -> PathBuf {
        let name = if self.os == Os::Windows {
            "unobserved.exe"
        } else {
            "unobserved"
        };
        self.data_dir.join("bin").join(name)
    }

    /// Whether the browser looks installed: its binary on PATH or its profile folder.
    pub fn detected(&self, b: &Browser) -> bool {
        let profile_root = self.manifest_dir(b, false).parent().map(Path::to_path_buf);
        profile_root.is_some_and(|p| p.is_dir() && self.os != Os::Windows)
            || b.binaries.iter().any(|name| on_path(name))
    }
}

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}
