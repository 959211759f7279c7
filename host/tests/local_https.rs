//! `install --local-https` as a person's everyday setup: a CA constrained to 127.0.0.1
//! and localhost, trusted in the NSS database of a (temporary) home, used by the native
//! host for its TLS sinks, honoured by a real Chromium with no flag, refused by that
//! Chromium for any other name, and removed again by `uninstall`. Needs certutil
//! (libnss3-tools) and Chromium, which the README's test command installs.

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

mod common;
use common::{Host, SinkProcess, BIN};

struct Setup {
    _dir: tempfile::TempDir,
    home: std::path::PathBuf,
    state: std::path::PathBuf,
}

fn unobserved(s: &Setup, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env("HOME", &s.home)
        .env("UNOBSERVED_STATE_DIR", &s.state)
        .output()
        .unwrap()
}

fn installed() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let s = Setup {
        home: dir.path().join("home"),
        state: dir.path().join("state"),
        _dir: dir,
    };
    std::fs::create_dir_all(&s.home).unwrap();
    let out = unobserved(
        &s,
        &[
            "install",
            "--browser",
            "chromium",
            "--in-place",
            "--local-https",
        ],
    );
    assert!(
        out.status.success(),
        "install --local-https failed (is certutil installed? the README's test command installs libnss3-tools): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    s
}

fn nssdb_lists(home: &Path) -> bool {
    Command::new("certutil")
        .args(["-L", "-n", unobserved::platform::local_ca::NICKNAME, "-d"])
        .arg(format!("sql:{}", home.join(".pki/nssdb").display()))
        .output()
        .expect("certutil (libnss3-tools)")
        .status
        .success()
}

/// A certificate for `name` from the installed CA, written as PEM files in `dir`.
fn leaf_from_ca(s: &Setup, name: &str, dir: &Path) -> (String, String) {
    let ca = unobserved::platform::local_tls::LocalCert {
        cert_pem: std::fs::read_to_string(unobserved::platform::local_ca::cert_path(&s.state))
            .unwrap(),
        key_pem: std::fs::read_to_string(unobserved::platform::local_ca::key_path(&s.state))
            .unwrap(),
    };
    let mut params = rcgen::CertificateParams::new(vec![name.to_owned()]).unwrap();
    params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let leaf = unobserved::platform::local_ca::sign_leaf(&ca, params).unwrap();
    let (cert, key) = (
        dir.join(format!("{name}.pem")),
        dir.join(format!("{name}.key")),
    );
    std::fs::write(&cert, leaf.cert_pem).unwrap();
    std::fs::write(&key, leaf.key_pem).unwrap();
    (cert.display().to_string(), key.display().to_string())
}

/// Whether an everyday-style Chromium (this home, a fresh profile, no certificate
/// flag) loads the sink's page over HTTPS: the page's own status element is in the DOM.
fn chromium_loads(home: &Path, url: &str) -> bool {
    let profile = tempfile::tempdir().unwrap();
    let chromium = String::from_utf8(
        Command::new(BIN)
            .args(["__find-browser", "chromium"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let out = Command::new(chromium.trim())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .args([
            "--disable-background-networking",
            "--disable-component-update",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", url])
        .env("HOME", home)
        .output()
        .expect("Chromium is needed (the README's test command installs it)");
    String::from_utf8_lossy(&out.stdout).contains(r#"id="status""#)
}

#[test]
fn the_local_ca_is_trusted_for_loopback_only_and_uninstall_removes_it() {
    let s = installed();
    assert!(nssdb_lists(&s.home), "the CA is in ~/.pki/nssdb");
    // Doctor checks the local CA (its check typed `local-https`) and finds it whole:
    // certificate, owner-only key, trusted.
    let doctor = unobserved(
        &s,
        &["doctor", "--json", "--profile", s.home.to_str().unwrap()],
    );
    let report: Value = serde_json::from_slice(&doctor.stdout).expect("doctor's JSON");
    let ca: Vec<&Value> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["about"] == json!({"kind": "local-https"}))
        .collect();
    let [ca] = ca.as_slice() else {
        panic!("one check of the local CA: {report:#}")
    };
    assert_eq!(ca["problems"], json!([]), "{ca:#}");
    assert_eq!(ca["ok"].as_array().map(Vec::len), Some(3), "{ca:#}");

    let certs = tempfile::tempdir().unwrap();
    let (cert, key) = leaf_from_ca(&s, "127.0.0.1", certs.path());
    let good = SinkProcess::start(&[
        "--listen",
        "127.0.0.1:0",
        "--tls-cert",
        &cert,
        "--tls-key",
        &key,
    ]);
    let page = format!("https://{}/bench/index.html", good.authority());
    assert!(
        chromium_loads(&s.home, &page),
        "a leaf of the CA for 127.0.0.1 is trusted"
    );
    let elsewhere = tempfile::tempdir().unwrap();
    assert!(
        !chromium_loads(elsewhere.path(), &page),
        "and only because of the installed CA"
    );
    // The CA's name constraints: even whoever holds its key cannot certify another name.
    let (cert, key) = leaf_from_ca(&s, "127.0.0.2", certs.path());
    let other = SinkProcess::start(&[
        "--listen",
        "127.0.0.2:0",
        "--public-host",
        "127.0.0.2",
        "--tls-cert",
        &cert,
        "--tls-key",
        &key,
    ]);
    let other_page = format!("https://{}/bench/index.html", other.authority());
    assert!(
        !chromium_loads(&s.home, &other_page),
        "a leaf for a name outside 127.0.0.1/localhost is refused"
    );

    let key_path = unobserved::platform::local_ca::key_path(&s.state);
    let out = unobserved(&s, &["uninstall"]);
    assert!(out.status.success());
    assert!(
        !nssdb_lists(&s.home),
        "uninstall takes the CA out of the NSS database"
    );
    assert!(!key_path.exists() && !unobserved::platform::local_ca::cert_path(&s.state).exists());
}

#[test]
fn an_everyday_host_serves_tls_transports_from_the_local_ca() {
    let s = installed();
    let mut host = Host::chromium(&s.state);
    host.send(&json!({"type": "hello"}));
    let run = |id: &str, transports: Value| {
        json!({"type": "run-started", "run": {"run_id": id, "browser": "Chromium", "sink": "local",
            "plan": {"size_bytes": 1024, "reps": 1, "warmup": 0, "bodies": ["Uint8Array"], "transports": transports}}})
    };
    let started = host.send(&run("everyday-1", json!(["h1", "h2"])));
    assert_eq!(started["type"], "run-started", "{started}");
    let labels: Vec<&str> = started["arms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Uint8Array h1", "Uint8Array h2"]);
    let h2 = started["upload_urls"]["h2"].as_str().unwrap();
    assert!(h2.starts_with("https://127.0.0.1:"), "{started}");
    // Any client that trusts the CA reaches it over HTTP/2 and gets the bytes verified.
    let ca = unobserved::platform::local_ca::cert_path(&s.state);
    let out = Command::new("curl")
        .args(["-s", "--max-time", "20", "--http2", "--cacert"])
        .arg(&ca)
        .args(["-X", "PUT", "--data-binary", "abc", h2])
        .output()
        .expect("curl");
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(
        reply["protocol"],
        "h2",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        reply["sha256"],
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );

    // Without the CA, a TLS transport is error 14 and nothing is stored for the run.
    let bare = tempfile::tempdir().unwrap();
    let mut host = Host::chromium(bare.path());
    host.send(&json!({"type": "hello"}));
    let refused = host.send(&run("everyday-2", json!(["h2"])));
    assert_eq!(
        (refused["type"].as_str(), refused["code"].as_u64()),
        (Some("error"), Some(14)),
        "{refused}"
    );
    let store = std::fs::read_to_string(bare.path().join("results.jsonl")).unwrap_or_default();
    assert!(!store.contains("everyday-2"));
}
