//! Install and uninstall over a temp HOME, judged by their actions and the disk.

use super::*;
use crate::browsers::{by_key, Os};

struct Setup {
    tmp: tempfile::TempDir,
    layout: Layout,
    plan: Plan,
    /// A stand-in for the host binary, copied by install.
    binary: PathBuf,
}

/// Chrome's manifest and a private file in the state dir, over a fresh temp HOME.
fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let data_dir = home.join(".local/share/unobserved");
    let layout = Layout {
        os: Os::Linux,
        windows_manifest_dir: data_dir.join("manifests"),
        system_root: tmp.path().join("prefix"),
        state_dir: home.join(".local/state/unobserved"),
        home,
        data_dir,
        chromium_profile: None,
    };
    std::fs::create_dir_all(&layout.home).unwrap();
    let binary = tmp.path().join("unobserved-build");
    std::fs::write(&binary, b"\x7fELF a host").unwrap();
    let chrome = by_key("chrome").unwrap();
    let ids = ["cccccccccccccccccccccccccccccccc".to_owned()];
    let plan = crate::plan::plan(&layout, &[chrome], &layout.binary_dest(), false, &ids);
    Setup {
        tmp,
        layout,
        plan,
        binary,
    }
}

impl Setup {
    fn install(&self, force: bool) -> Result<Report> {
        let opts = InstallOptions {
            force,
            dry_run: false,
            copy_binary_from: Some(&self.binary),
        };
        install(&self.layout, &self.plan, &opts)
    }

    fn manifest(&self) -> PathBuf {
        self.layout.manifest_path(by_key("chrome").unwrap(), false)
    }

    fn edit_receipt(&self, edit: impl FnOnce(&mut Receipt)) {
        let mut r = Receipt::load(&self.layout).unwrap();
        edit(&mut r);
        r.save(&self.layout).unwrap();
    }

    /// A folder beside HOME, not one install writes to.
    fn victim(&self) -> PathBuf {
        let v = self.tmp.path().join("victim");
        std::fs::create_dir_all(v.join("dir")).unwrap();
        for name in ["file", "bin", "saved"] {
            std::fs::write(v.join(name), name).unwrap();
        }
        v
    }
}

fn kept(report: &Report, path: &Path) -> Option<KeptBecause> {
    report.actions.iter().find_map(|a| match a {
        Action::Kept { path: p, why } if p == path => Some(*why),
        _ => None,
    })
}

#[test]
fn install_then_uninstall_removes_everything_it_wrote() {
    let s = setup();
    let before: Vec<_> = std::fs::read_dir(&s.layout.home).unwrap().collect();
    assert!(before.is_empty());
    let report = s.install(false).unwrap();
    for f in &s.plan.files {
        let wrote = Action::WroteFile {
            path: f.path.clone(),
            browsers: f.browsers.clone(),
        };
        assert!(report.actions.contains(&wrote), "{report:?}");
    }
    let gone = uninstall(&s.layout, false).unwrap();
    assert!(
        gone.actions
            .iter()
            .all(|a| matches!(a, Action::RemovedFile { .. })),
        "{gone:?}"
    );
    assert_eq!(std::fs::read_dir(&s.layout.home).unwrap().count(), 0);
}

#[test]
fn a_tampered_receipt_deletes_nothing_outside_the_roots() {
    let s = setup();
    s.install(false).unwrap();
    let v = s.victim();
    let bytes = |p: &Path| std::fs::read(p).unwrap();
    // Reached through `..`, and through a symlinked folder inside the data dir.
    let dotdot = s.layout.data_dir.join("../../../../victim/file");
    std::os::unix::fs::symlink(&v, s.layout.data_dir.join("link")).unwrap();
    let linked = s.layout.data_dir.join("link/bin");
    // Another program's manifest beside ours, and a file in a manifest folder's parent.
    let other = s.manifest().with_file_name("com.other.host.json");
    std::fs::write(&other, br#"{"name":"com.other.host"}"#).unwrap();
    s.edit_receipt(|r| {
        for p in [&v.join("file"), &dotdot, &linked, &other] {
            r.files.push(Recorded::of(p, &bytes(p)));
        }
        r.dirs_created.push(v.join("dir"));
        r.binary = Some(Recorded::of(&v.join("bin"), b"bin"));
        r.backups.push(Backup::Copy {
            original: v.join("file"),
            saved: v.join("saved"),
            sha256: Sha256::of(b"saved"),
        });
    });
    let report = uninstall(&s.layout, false).unwrap();
    for name in ["file", "bin", "saved"] {
        assert_eq!(bytes(&v.join(name)), name.as_bytes(), "{name} survives");
    }
    assert!(v.join("dir").is_dir() && other.is_file());
    for p in [
        &v.join("file"),
        &v.join("dir"),
        &v.join("bin"),
        &dotdot,
        &linked,
        &other,
    ] {
        assert_eq!(
            kept(&report, p),
            Some(KeptBecause::OutsideRoots),
            "{}",
            p.display()
        );
    }
    assert!(report.actions.iter().any(|a| matches!(
        a,
        Action::NotRestored {
            why: KeptBecause::OutsideRoots,
            ..
        }
    )));
    assert!(!s.manifest().exists(), "our own manifest still goes");
}

#[test]
fn our_manifest_name_in_a_manifest_folder_is_not_enough() {
    let s = setup();
    s.install(false).unwrap();
    // Another program's text under our name, listed with its true hash.
    let text = br#"{"name":"com.other.host"}"#;
    std::fs::write(s.manifest(), text).unwrap();
    s.edit_receipt(|r| r.record_file(&s.manifest(), text));
    let report = uninstall(&s.layout, false).unwrap();
    assert_eq!(
        kept(&report, &s.manifest()),
        Some(KeptBecause::NotOurManifest)
    );
    assert_eq!(std::fs::read(s.manifest()).unwrap(), text);
}

#[test]
fn files_changed_since_install_survive() {
    let s = setup();
    s.install(false).unwrap();
    let mut text = std::fs::read_to_string(s.manifest()).unwrap();
    text.insert(1, ' ');
    std::fs::write(s.manifest(), &text).unwrap();
    std::fs::write(s.layout.binary_dest(), b"a newer build").unwrap();
    let report = uninstall(&s.layout, false).unwrap();
    assert_eq!(std::fs::read_to_string(s.manifest()).unwrap(), text);
    assert_eq!(kept(&report, &s.manifest()), Some(KeptBecause::Changed));
    assert_eq!(
        kept(&report, &s.layout.binary_dest()),
        Some(KeptBecause::Changed)
    );
    assert!(s.layout.binary_dest().is_file());
}

#[test]
fn a_symlinked_manifest_comes_back_as_the_same_link() {
    let s = setup();
    let target = s.tmp.path().join("dotfiles/manifest.json");
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(&target, "theirs").unwrap();
    std::fs::create_dir_all(s.manifest().parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, s.manifest()).unwrap();
    let refused = s.install(false).unwrap_err();
    let foreign = refused
        .downcast_ref::<Foreign>()
        .expect("refused as foreign");
    assert_eq!(foreign.files, [s.manifest()]);
    s.install(true).unwrap();
    assert!(!std::fs::symlink_metadata(s.manifest())
        .unwrap()
        .is_symlink());
    let report = uninstall(&s.layout, false).unwrap();
    assert_eq!(std::fs::read_link(s.manifest()).unwrap(), target);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs");
    let restored = Action::RestoredLink {
        path: s.manifest(),
        target,
    };
    assert!(report.actions.contains(&restored), "{report:?}");
}

#[test]
fn a_replaced_file_comes_back_with_its_bytes() {
    let s = setup();
    std::fs::create_dir_all(s.manifest().parent().unwrap()).unwrap();
    std::fs::write(s.manifest(), "theirs").unwrap();
    s.install(true).unwrap();
    uninstall(&s.layout, false).unwrap();
    assert_eq!(std::fs::read_to_string(s.manifest()).unwrap(), "theirs");
    assert!(!s.layout.data_dir.exists(), "the backup went with the rest");
}

#[test]
fn the_receipt_keeps_hashes_not_contents() {
    let mut s = setup();
    let key = s.layout.state_dir.join("local-https/ca.key");
    s.plan.files.push(FileWrite {
        path: key.clone(),
        contents: "-----BEGIN PRIVATE KEY----- secret".into(),
        browsers: vec!["chrome".into()],
        private: true,
    });
    s.install(false).unwrap();
    let receipt = std::fs::read_to_string(s.layout.receipt_path()).unwrap();
    assert!(
        !receipt.contains("secret"),
        "the CA key leaked into {receipt}"
    );
    uninstall(&s.layout, false).unwrap();
    assert!(!key.exists());
}

#[test]
fn an_old_receipt_removes_only_our_manifest_and_the_binary_at_its_place() {
    let s = setup();
    s.install(false).unwrap();
    let allowed = s.layout.state_dir.join("allowed-ids.json");
    let stray = s.layout.data_dir.join("bin/other");
    std::fs::write(&stray, "x").unwrap();
    // As an older version wrote it: whole texts, and the binary by its path.
    let legacy = |p: &Path| Recorded::LegacyText {
        path: p.to_owned(),
        contents: std::fs::read_to_string(p).unwrap(),
    };
    s.edit_receipt(|r| {
        r.files = vec![
            legacy(&s.manifest()),
            legacy(&allowed),
            Recorded::LegacyPath(stray.clone()),
        ];
        r.binary = Some(Recorded::LegacyPath(s.layout.binary_dest()));
    });
    let report = uninstall(&s.layout, false).unwrap();
    assert!(!s.manifest().exists() && !s.layout.binary_dest().exists());
    assert_eq!(kept(&report, &allowed), Some(KeptBecause::LegacyReceipt));
    assert_eq!(kept(&report, &stray), Some(KeptBecause::LegacyReceipt));
    assert!(allowed.is_file() && stray.is_file());
}

#[test]
fn a_dry_run_plans_the_same_actions_and_touches_nothing() {
    let s = setup();
    let opts = InstallOptions {
        force: false,
        dry_run: true,
        copy_binary_from: Some(&s.binary),
    };
    let planned = install(&s.layout, &s.plan, &opts).unwrap();
    assert!(planned.dry_run);
    assert_eq!(std::fs::read_dir(&s.layout.home).unwrap().count(), 0);
    assert_eq!(planned.actions, s.install(false).unwrap().actions);
    let undo = uninstall(&s.layout, true).unwrap();
    assert!(s.manifest().is_file());
    assert_eq!(undo.actions, uninstall(&s.layout, false).unwrap().actions);
}
