//! install / doctor / uninstall over a temp HOME and a temp system prefix, with the
//! real binary answering doctor's hello.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use unobserved::cli::setup_cmds::hello_probe;
use unobserved_installer::action::{Action, Report};
use unobserved_installer::apply::{self, InstallOptions};
use unobserved_installer::browsers::{Os, BROWSERS};
use unobserved_installer::doctor::{doctor, About, ProblemKind};
use unobserved_installer::layout::Layout;
use unobserved_installer::plan::{plan, Plan};

mod common;
use common::BIN;

fn layout(root: &Path, os: Os) -> Layout {
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(root.join("prefix/etc")).unwrap();
    let data_dir = home.join(".local/share/unobserved");
    Layout {
        os,
        chromium_profile: None,
        windows_manifest_dir: data_dir.join("manifests"),
        home: home.clone(),
        system_root: root.join("prefix"),
        data_dir,
        state_dir: home.join(".local/state/unobserved"),
    }
}

/// Every file with its bytes and every folder, relative to `root`.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Option<Vec<u8>>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_owned();
            if p.is_dir() {
                out.insert(rel, None);
                walk(root, &p, out);
            } else {
                out.insert(rel, Some(std::fs::read(&p).unwrap()));
            }
        }
    }
    walk(root, root, &mut out);
    out
}

fn round_trip(os: Os, system: bool) {
    let tmp = tempfile::tempdir().unwrap();
    let l = layout(tmp.path(), os);
    // Something of the user's own that must survive untouched.
    std::fs::create_dir_all(l.home.join(".config/chromium")).unwrap();
    std::fs::write(l.home.join(".config/chromium/Preferences"), b"{\"mine\":1}").unwrap();
    let before = snapshot(tmp.path());

    let all: Vec<_> = BROWSERS.iter().collect();
    let p = plan(&l, &all, &l.binary_dest(), system, &[]);
    let opts = InstallOptions {
        force: false,
        dry_run: false,
        copy_binary_from: Some(Path::new(BIN)),
    };
    let wrote = apply::install(&l, &p, &opts).unwrap();
    assert_eq!(
        file_actions(&wrote),
        each_file(&p, |path, browsers| Action::WroteFile { path, browsers })
    );
    for f in &p.files {
        assert!(
            f.path.starts_with(tmp.path()),
            "{} escaped the temp tree",
            f.path.display()
        );
        assert!(f.path.is_file());
    }
    assert_doctor_finds_no_problem(&l, system);

    // Idempotent: a second install changes nothing on disk.
    let after_first = snapshot(tmp.path());
    let again = apply::install(&l, &p, &opts).unwrap();
    assert_eq!(
        file_actions(&again),
        each_file(&p, |path, browsers| Action::Unchanged { path, browsers })
    );
    assert_eq!(snapshot(tmp.path()), after_first);

    // A dry-run uninstall says what it would do, in the future tense, and does nothing.
    let planned = apply::uninstall(&l, true).unwrap();
    assert!(planned.dry_run);
    let would_remove = undo_actions(&p, &l);
    assert_eq!(planned.actions, would_remove);
    assert_eq!(snapshot(tmp.path()), after_first);

    assert_eq!(apply::uninstall(&l, false).unwrap().actions, would_remove);
    assert_eq!(
        snapshot(tmp.path()),
        before,
        "uninstall must leave the tree exactly as it was"
    );
}

/// Install's actions but the binary's.
fn file_actions(r: &Report) -> Vec<Action> {
    r.actions
        .iter()
        .filter(|a| !matches!(a, Action::CopiedBinary { .. }))
        .cloned()
        .collect()
}

/// One action per planned file, made by `made` from its path and browsers.
fn each_file(p: &Plan, made: fn(PathBuf, Vec<String>) -> Action) -> Vec<Action> {
    p.files
        .iter()
        .map(|f| made(f.path.clone(), f.browsers.clone()))
        .collect()
}

/// Uninstall of an untouched install of `p`: every file, every key, the binary.
fn undo_actions(p: &Plan, l: &Layout) -> Vec<Action> {
    let removed = |path: PathBuf| Action::RemovedFile { path };
    let keys = p
        .registry
        .iter()
        .map(|key| Action::DeletedKey { key: key.clone() });
    (p.files.iter().map(|f| removed(f.path.clone())))
        .chain(keys)
        .chain([removed(l.binary_dest())])
        .collect()
}

fn assert_doctor_finds_no_problem(l: &Layout, system: bool) {
    let checks = doctor(l, system, &hello_probe);
    let problems: Vec<_> = checks
        .iter()
        .flat_map(|c| {
            c.problems
                .iter()
                .map(move |p| format!("{}: {}", c.subject, p.what))
        })
        .collect();
    assert!(problems.is_empty(), "doctor found problems: {problems:#?}");
    // Doctor checked (and so started) the host for every browser, without a problem.
    let browsers_checked = checks
        .iter()
        .filter(|c| matches!(c.about, About::Browser { .. }))
        .count();
    assert!(browsers_checked >= 2, "{checks:?}");
}

#[test]
fn linux_user_install_doctor_uninstall() {
    round_trip(Os::Linux, false);
}

#[test]
fn linux_system_install_into_a_prefix() {
    round_trip(Os::Linux, true);
}

#[test]
fn macos_user_install_doctor_uninstall() {
    round_trip(Os::MacOs, false);
}

#[test]
fn macos_layout_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let l = layout(tmp.path(), Os::MacOs);
    let chrome = unobserved_installer::browsers::by_key("chrome").unwrap();
    assert_eq!(
        l.manifest_dir(chrome, false),
        l.home
            .join("Library/Application Support/Google/Chrome/NativeMessagingHosts")
    );
    assert_eq!(
        l.manifest_dir(chrome, true),
        tmp.path()
            .join("prefix/Library/Google/Chrome/NativeMessagingHosts")
    );
}

#[test]
fn a_foreign_manifest_is_kept_unless_forced_and_restored_on_uninstall() {
    let tmp = tempfile::tempdir().unwrap();
    let l = layout(tmp.path(), Os::Linux);
    let chrome = unobserved_installer::browsers::by_key("chrome").unwrap();
    let target = l
        .manifest_dir(chrome, false)
        .join("org.unobserved.host.json");
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(&target, b"{\"someone\":\"else\"}").unwrap();

    let p = plan(&l, &[chrome], Path::new(BIN), false, &[]);
    let err = apply::install(
        &l,
        &p,
        &InstallOptions {
            force: false,
            dry_run: false,
            copy_binary_from: None,
        },
    )
    .unwrap_err();
    let foreign = err
        .downcast_ref::<apply::Foreign>()
        .expect("refused as foreign");
    assert_eq!(foreign.files, std::slice::from_ref(&target));
    assert_eq!(std::fs::read(&target).unwrap(), b"{\"someone\":\"else\"}");

    apply::install(
        &l,
        &p,
        &InstallOptions {
            force: true,
            dry_run: false,
            copy_binary_from: None,
        },
    )
    .unwrap();
    assert!(std::fs::read_to_string(&target)
        .unwrap()
        .contains("org.unobserved.host"));
    apply::uninstall(&l, false).unwrap();
    assert_eq!(
        std::fs::read(&target).unwrap(),
        b"{\"someone\":\"else\"}",
        "the foreign manifest is put back"
    );
}

#[test]
fn extra_extension_ids_reach_manifests_and_the_host_allow_list() {
    let tmp = tempfile::tempdir().unwrap();
    let l = layout(tmp.path(), Os::Linux);
    let b: Vec<_> = ["chrome", "firefox"]
        .iter()
        .map(|k| unobserved_installer::browsers::by_key(k).unwrap())
        .collect();
    let ids = vec![
        "cccccccccccccccccccccccccccccccc".to_owned(),
        "{e4a8a97b-f2ed-450b-b12d-ee082ba24781}".to_owned(),
    ];
    let p = plan(&l, &b, Path::new(BIN), false, &ids);
    apply::install(
        &l,
        &p,
        &InstallOptions {
            force: false,
            dry_run: false,
            copy_binary_from: None,
        },
    )
    .unwrap();
    let chrome =
        std::fs::read_to_string(l.manifest_dir(b[0], false).join("org.unobserved.host.json"))
            .unwrap();
    assert!(
        chrome.contains("chrome-extension://cccccccccccccccccccccccccccccccc/")
            && !chrome.contains("aaaa")
    );
    let firefox =
        std::fs::read_to_string(l.manifest_dir(b[1], false).join("org.unobserved.host.json"))
            .unwrap();
    assert!(
        firefox.contains("{e4a8a97b-f2ed-450b-b12d-ee082ba24781}") && !firefox.contains("cccc")
    );
    let allowed = std::fs::read_to_string(l.state_dir.join("allowed-ids.json")).unwrap();
    assert!(allowed.contains("cccccccccccccccccccccccccccccccc"));
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&l.state_dir.join("allowed-ids.json")), 0o600);
    assert_eq!(mode(&l.state_dir), 0o700);
    apply::uninstall(&l, false).unwrap();
    assert!(!l.state_dir.exists());
}

#[test]
fn windows_registry_plan_is_exact() {
    let tmp = tempfile::tempdir().unwrap();
    let l = layout(tmp.path(), Os::Windows);
    let b: Vec<_> = ["chrome", "brave", "edge", "firefox", "librewolf"]
        .iter()
        .map(|k| unobserved_installer::browsers::by_key(k).unwrap())
        .collect();
    let user = plan(&l, &b, Path::new(r"C:\u\unobserved.exe"), false, &[]);
    let keys: Vec<(String, String)> = user
        .registry
        .iter()
        .map(|r| (r.hive.clone(), r.key.clone()))
        .collect();
    let expect = |k: &str| ("HKCU".to_owned(), format!(r"{k}\org.unobserved.host"));
    assert_eq!(
        keys,
        vec![
            expect(r"Software\Google\Chrome\NativeMessagingHosts"),
            expect(r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts"),
            expect(r"Software\Microsoft\Edge\NativeMessagingHosts"),
            expect(r"Software\Mozilla\NativeMessagingHosts"),
            expect(r"Software\LibreWolf\NativeMessagingHosts"),
        ],
        "shared keys are written once"
    );
    // Each key's default value is the path of a manifest of the right family.
    for r in &user.registry {
        let file = user
            .files
            .iter()
            .find(|f| f.path.to_string_lossy() == r.value)
            .expect("value names a planned file");
        let firefox_key = r.key.contains("Mozilla") || r.key.contains("LibreWolf");
        assert_eq!(
            file.contents.contains("allowed_extensions"),
            firefox_key,
            "{}",
            r.key
        );
    }
    let system = plan(&l, &b, Path::new(r"C:\u\unobserved.exe"), true, &[]);
    assert!(system.registry.iter().all(|r| r.hive == "HKLM"));
}

#[test]
fn cli_dry_run_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let before = snapshot(tmp.path());
    let out = Command::new(BIN)
        .args([
            "install",
            "--dry-run",
            "--browser",
            "chrome",
            "--browser",
            "firefox",
        ])
        .env("HOME", tmp.path())
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_STATE_HOME")
        .env("UNOBSERVED_STATE_DIR", tmp.path().join("state"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // It names what it would write (a path, not wording).
    assert!(
        text.contains(".mozilla/native-messaging-hosts/org.unobserved.host.json"),
        "{text}"
    );
    let after: Vec<_> = snapshot(tmp.path())
        .into_keys()
        .filter(|p| !p.starts_with("state"))
        .collect();
    assert_eq!(after, before.into_keys().collect::<Vec<_>>());
}

#[test]
fn cli_unknown_browser_is_a_usage_error() {
    let state = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["install", "--dry-run", "--browser", "netscape"])
        .env("UNOBSERVED_STATE_DIR", state.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn snap_and_flatpak_browsers_are_detected_with_advice_and_nothing_is_written_for_them() {
    let tmp = tempfile::tempdir().unwrap();
    let l = layout(tmp.path(), Os::Linux);
    std::fs::create_dir_all(l.home.join("snap/firefox")).unwrap();
    std::fs::create_dir_all(l.home.join(".var/app/org.chromium.Chromium")).unwrap();
    let notes = unobserved_installer::sandbox::detect(&l);
    let kinds: Vec<_> = notes.iter().map(|n| (n.browser, n.kind)).collect();
    assert_eq!(kinds, [("Firefox", "snap"), ("Chromium", "Flatpak")]);
    // Snap Firefox reaches the host through the portal; Flatpak Chromium cannot.
    assert_eq!(
        notes.iter().map(|n| n.reachable).collect::<Vec<_>>(),
        [true, false]
    );
    // Doctor repeats them as problems with advice; install never writes into them.
    let checks = doctor(&l, false, &hello_probe);
    let flatpak = About::Sandboxed {
        browser: "Chromium",
        package: "Flatpak",
    };
    assert!(
        checks
            .iter()
            .any(|c| c.about == flatpak
                && c.problems.iter().any(|p| p.kind == ProblemKind::Sandboxed))
    );
    let all: Vec<_> = BROWSERS.iter().collect();
    let p = plan(&l, &all, Path::new(BIN), false, &[]);
    assert!(p
        .files
        .iter()
        .all(|f| !f.path.starts_with(l.home.join(".var"))
            && !f.path.starts_with(l.home.join("snap"))));
}

#[test]
fn doctor_reports_a_broken_manifest_with_a_fix_and_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dir = home.join(".config/google-chrome/NativeMessagingHosts");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("org.unobserved.host.json"),
        r#"{"name":"org.unobserved.host","type":"stdio","path":"/nonexistent/unobserved","allowed_origins":["chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm/"]}"#,
    )
    .unwrap();
    let out = Command::new(BIN)
        .args(["doctor", "--json"])
        .env("HOME", home)
        .env_remove("XDG_DATA_HOME")
        .env("UNOBSERVED_STATE_DIR", home.join("state"))
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let chrome = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["about"] == serde_json::json!({"kind": "browser", "browser": "chrome"}))
        .expect("Chrome is checked");
    let kinds: Vec<&str> = chrome["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["host-path-missing"], "{text}");
    assert!(
        chrome["problems"][0]["fix"].is_string(),
        "each problem has a fix"
    );
}

#[test]
fn pack_builds_store_packages_without_tests() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["pack", "--out"])
        .arg(tmp.path())
        .env("UNOBSERVED_STATE_DIR", tmp.path().join("state"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains("-chromium.zip") && listed.contains("-firefox-unsigned.xpi"));
    // Each package is printed as its folder, then its archive.
    for line in listed.lines().filter(|l| !Path::new(l).is_dir()) {
        // Read with the zip crate (already a dependency), not a python3 the machine may lack.
        let archive = zip::ZipArchive::new(std::fs::File::open(line).unwrap()).unwrap();
        let names = archive
            .file_names()
            .map(|n| n.unwrap().into_owned())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(names.lines().any(|n| n == "manifest.json"), "{names}");
        assert!(
            names.lines().any(|n| n == "bench/bench.js")
                && names.lines().any(|n| n == "popup/popup.html")
        );
        assert!(
            !names
                .lines()
                .any(|n| n.starts_with("tests/") || n.ends_with(".md")),
            "dev files leaked: {names}"
        );
    }
}

/// `unobserved` as a user types it, in a throwaway HOME, with every default (the state
/// dir too) inside it, under a umask that would make files world-writable.
fn cli(home: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("umask 000; exec \"$0\" \"$@\"")
        .arg(BIN)
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("UNOBSERVED_STATE_DIR");
    let out = cmd.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

#[test]
fn the_cli_installs_checks_and_uninstalls_and_home_is_as_it_was() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let before = snapshot(h);
    let store_id = "cccccccccccccccccccccccccccccccc";
    let install = [
        "install",
        "--browser",
        "chromium",
        "--browser",
        "firefox",
        "--extension-id",
        store_id,
    ];
    assert_eq!(cli(h, &install).0, Some(0));
    let chromium = h.join(".config/chromium/NativeMessagingHosts/org.unobserved.host.json");
    let firefox = h.join(".mozilla/native-messaging-hosts/org.unobserved.host.json");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&chromium).unwrap()).unwrap();
    assert!(manifest["allowed_origins"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!(format!(
            "chrome-extension://{store_id}/"
        ))));
    // The manifest points at a stable copy of the binary, which answers a real hello.
    let host = manifest["path"].as_str().unwrap();
    assert!(Path::new(host).starts_with(h), "{host}");
    assert!(firefox.is_file());
    let (code, report) = cli(h, &["doctor"]);
    assert_eq!(code, Some(0), "{report}");
    // Again: nothing changes.
    let installed = snapshot(h);
    assert_eq!(cli(h, &install).0, Some(0));
    assert_eq!(snapshot(h), installed);
    assert_eq!(cli(h, &["uninstall"]).0, Some(0));
    // Nothing left: not the manifests, not the binary, not a state dir or a log.
    assert_eq!(snapshot(h), before);
}

#[test]
fn the_cli_keeps_a_foreign_manifest_unless_forced_and_in_place_points_at_this_binary() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let foreign = h.join(".config/chromium/NativeMessagingHosts/org.unobserved.host.json");
    std::fs::create_dir_all(foreign.parent().unwrap()).unwrap();
    std::fs::write(&foreign, "{\"name\":\"someone else's\"}").unwrap();
    let (code, _) = cli(h, &["install", "--browser", "chromium", "--in-place"]);
    assert_eq!(code, Some(1), "a foreign manifest is not overwritten");
    assert_eq!(
        std::fs::read_to_string(&foreign).unwrap(),
        "{\"name\":\"someone else's\"}"
    );
    assert_eq!(
        cli(
            h,
            &["install", "--browser", "chromium", "--in-place", "--force"]
        )
        .0,
        Some(0)
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&foreign).unwrap()).unwrap();
    assert_eq!(
        manifest["path"], BIN,
        "--in-place points at the binary where it is"
    );
    assert_eq!(cli(h, &["uninstall"]).0, Some(0));
    assert_eq!(
        std::fs::read_to_string(&foreign).unwrap(),
        "{\"name\":\"someone else's\"}",
        "uninstall restores what --force replaced"
    );
}

#[test]
fn installed_files_and_folders_keep_safe_modes_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    assert_eq!(cli(h, &["install", "--browser", "chromium"]).0, Some(0));
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let dir = h.join(".config/chromium/NativeMessagingHosts");
    assert_eq!(mode(&dir.join("org.unobserved.host.json")), 0o644);
    assert_eq!(mode(&dir), 0o755, "a folder install created");
    assert_eq!(mode(&h.join(".config/chromium")), 0o755);
}

#[test]
fn force_replaces_a_symlinked_manifest_without_writing_through_it() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let target = h.join("precious.json");
    std::fs::write(&target, "precious").unwrap();
    let manifest = h.join(".config/chromium/NativeMessagingHosts/org.unobserved.host.json");
    std::fs::create_dir_all(manifest.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, &manifest).unwrap();
    assert_eq!(
        cli(h, &["install", "--browser", "chromium", "--force"]).0,
        Some(0)
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
    assert!(!std::fs::symlink_metadata(&manifest)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(cli(h, &["uninstall"]).0, Some(0));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
    assert_eq!(
        std::fs::read_link(&manifest).unwrap(),
        target,
        "the link comes back as a link, to the same target"
    );
}

#[test]
fn a_tampered_receipt_makes_uninstall_delete_nothing_outside_what_install_writes() {
    use unobserved_installer::receipt::{Receipt, Recorded};
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    assert_eq!(cli(h, &["install", "--browser", "chromium"]).0, Some(0));
    let victim = tempfile::tempdir().unwrap();
    let v = victim.path();
    std::fs::create_dir(v.join("dir")).unwrap();
    std::fs::write(v.join("file"), "file").unwrap();
    std::fs::write(v.join("bin"), "bin").unwrap();
    // Listed with their true hashes: only where they are gives them away.
    let receipt_path = h.join(".local/share/unobserved/install-receipt.json");
    let mut receipt: Receipt =
        serde_json::from_slice(&std::fs::read(&receipt_path).unwrap()).unwrap();
    receipt.files.push(Recorded::of(&v.join("file"), b"file"));
    receipt.dirs_created.push(v.join("dir"));
    receipt.binary = Some(Recorded::of(&v.join("bin"), b"bin"));
    std::fs::write(&receipt_path, serde_json::to_vec(&receipt).unwrap()).unwrap();
    assert_eq!(cli(h, &["uninstall"]).0, Some(0));
    assert_eq!(std::fs::read_to_string(v.join("file")).unwrap(), "file");
    assert_eq!(std::fs::read_to_string(v.join("bin")).unwrap(), "bin");
    assert!(v.join("dir").is_dir());
    let manifest = h.join(".config/chromium/NativeMessagingHosts/org.unobserved.host.json");
    assert!(!manifest.exists(), "what install wrote still goes");
}

#[test]
fn pack_with_control_builds_an_extension_that_requires_the_debugger_permission() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["pack", "--with-control", "--out"])
        .arg(tmp.path())
        .env("UNOBSERVED_STATE_DIR", tmp.path().join("state"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let zip = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("-chromium-control.zip"))
        .expect("the control build");
    let mut archive = zip::ZipArchive::new(std::fs::File::open(zip).unwrap()).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("manifest.json").unwrap(), &mut text)
        .unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    let has = |list: &str| {
        manifest[list]
            .as_array()
            .is_some_and(|l| l.iter().any(|p| p == "debugger"))
    };
    assert!(
        has("permissions") && !has("optional_permissions"),
        "{manifest}"
    );
    // The unpacked copy, for "Load unpacked", is the same build.
    let read = |folder: &str| -> serde_json::Value {
        serde_json::from_str(
            &std::fs::read_to_string(tmp.path().join(folder).join("manifest.json")).unwrap(),
        )
        .unwrap()
    };
    assert_eq!(read("chromium-control"), manifest);
    // One package per family, each without the other family's fields, and the Firefox
    // archive says in its name that it is unsigned.
    assert!(read("chromium").get("browser_specific_settings").is_none());
    assert!(read("firefox").get("key").is_none());
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().any(|n| n.ends_with("-firefox-unsigned.xpi")),
        "{names:?}"
    );
}

#[test]
fn a_profile_with_its_own_user_data_dir_gets_its_manifest_there() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let profile = h.join("custom-profile");
    std::fs::create_dir(&profile).unwrap();
    let p = profile.to_str().unwrap();
    assert_eq!(
        cli(h, &["install", "--browser", "chromium", "--profile", p]).0,
        Some(0)
    );
    let manifest = profile.join("NativeMessagingHosts/org.unobserved.host.json");
    assert!(
        manifest.is_file(),
        "Chromium with --user-data-dir reads only its profile"
    );
    assert!(!h.join(".config/chromium/NativeMessagingHosts").exists());
    let (code, report) = cli(h, &["doctor", "--profile", p]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(cli(h, &["uninstall"]).0, Some(0));
    assert!(!manifest.exists());
    assert_eq!(
        cli(h, &["install", "--profile", "/nonexistent-profile"]).0,
        Some(2)
    );
}
