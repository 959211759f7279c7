//! WebKit for real: WebKitGTK's MiniBrowser under Xvfb with nothing attached (no
//! WebDriver, no `--automation`), through `unobserved run --browser webkit` and through
//! the page `unobserved serve` serves, started by a key press. One shared Xvfb and small
//! plans keep it short; browsers take turns.

mod common;

use common::runs::ONE_AT_A_TIME;
use common::serve::Serve;
use common::BIN;
use serde_json::Value;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// One Xvfb for every test here, held by a thread that never ends: the display dies
/// with the test process (Linux ends Xvfb with the thread that started it).
fn display() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let display = unobserved::launch::display::VirtualDisplay::start()
                .expect("Xvfb (scripts/ensure-deps.sh installs it)");
            tx.send(display.name.clone()).unwrap();
            loop {
                std::thread::park();
            }
        });
        rx.recv().unwrap()
    })
}

fn minibrowser() -> String {
    let out = Command::new(BIN)
        .args(["__find-browser", "webkit"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "MiniBrowser is missing: scripts/ensure-deps.sh installs libwebkit2gtk-4.1-0"
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

fn arm<'a>(run: &'a Value, body: &str) -> &'a Value {
    run["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| {
            a["arm"]["kind"] == "body"
                && a["arm"]["body"] == body
                && a["arm"].get("transport").is_none()
        })
        .unwrap_or_else(|| panic!("no arm {body}"))
}

/// Also a page per block (issue 36): four reps in blocks of two, the second block in a
/// fresh copy of serve's page.
#[test]
fn run_browser_webkit_uploads_typed_arrays_and_blobs_intact_and_refuses_streams() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    let json = state.path().join("run.json");
    let out = Command::new(BIN)
        .args([
            "run",
            "--browser",
            "webkit",
            "--size",
            "1MiB",
            "--reps",
            "4",
            "--block-reps",
            "2",
            "--warmup",
            "0",
            "--quiet",
            "--json",
        ])
        .arg(&json)
        .env("UNOBSERVED_STATE_DIR", state.path())
        .env("DISPLAY", display())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    common::runs::assert_matches_schema(&doc);
    let run = &doc["runs"][0];
    assert_eq!(run["run"]["browser"], "WebKitGTK");
    assert_eq!(run["run"]["observed"], "no");
    assert_eq!(run["run"]["status"], "complete");
    for body in ["Uint8Array", "ArrayBuffer", "Blob"] {
        assert_eq!(
            arm(run, body)["statuses"],
            serde_json::json!({"ok": 4}),
            "{body}: {}",
            arm(run, body)
        );
    }
    let stream = arm(run, "ReadableStream");
    assert_eq!(
        stream["statuses"],
        serde_json::json!({"unsupported": 4}),
        "{stream}"
    );
    let samples = run["samples"].as_array().unwrap();
    let refused = samples
        .iter()
        .find(|s| s["body"] == "ReadableStream")
        .unwrap();
    assert_eq!(refused["error"], "fetch-rejected", "{refused}");
    assert!(
        refused["rejection"]
            .as_str()
            .unwrap()
            .starts_with("NotSupportedError"),
        "{refused}"
    );
    assert!(samples.iter().all(|s| s["observed"]["webdriver"] == false));
    assert_a_fresh_page_per_block(run);
    // The reason is explained, as for the other engines.
    let notes = run["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n["kind"] == "integrity-reason" && n["arm"] == "ReadableStream"),
        "{notes:?}"
    );
    // Nothing attached: a plain private session, and the token not in the document.
    let command: Vec<String> = serde_json::from_value(doc["launch"][0]["command"].clone()).unwrap();
    assert!(command.contains(&"--private".to_owned()), "{command:?}");
    assert!(
        !command
            .iter()
            .any(|a| a.contains("automation") || a.contains("webdriver")),
        "{command:?}"
    );
    assert!(
        command.iter().any(|a| a.ends_with("#<token>")),
        "{command:?}"
    );
}

/// Two blocks, each in a copy of the page serve served for it (`own`, pages 0 and 1),
/// and every arm's reps 0-3 stored once, each from its block's page.
fn assert_a_fresh_page_per_block(run: &Value) {
    let pages: Vec<&Value> = run["run"]["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["page"])
        .collect();
    let own = |load: u32| serde_json::json!({"kind": "own", "load": load});
    assert_eq!(pages, [&own(0), &own(1)], "{}", run["run"]["blocks"]);
    for body in ["Uint8Array", "ArrayBuffer", "Blob", "ReadableStream"] {
        let mut reps: Vec<(u64, u64)> = run["samples"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["body"] == body)
            .map(|s| (s["rep"].as_u64().unwrap(), s["page_load"].as_u64().unwrap()))
            .collect();
        reps.sort();
        assert_eq!(reps, [(0, 0), (1, 0), (2, 1), (3, 1)], "{body}");
    }
}

/// Opens `serve`'s URL in MiniBrowser (with `browser_args` before it), presses Enter
/// on its Run button until the host has the run, and waits for `serve --once` to exit
/// after it: the store it leaves.
fn press_run(serve: &mut Serve, browser_args: &[&str]) -> Vec<Value> {
    let home = tempfile::tempdir().unwrap();
    let mut browser = Command::new(minibrowser())
        .arg("--private")
        .args(browser_args)
        .arg(&serve.url)
        .env("DISPLAY", display())
        .env("HOME", home.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let xdotool = |args: &[&str]| {
        Command::new("xdotool")
            .args(args)
            .env("DISPLAY", display())
            .output()
            .expect("xdotool")
    };
    let window = xdotool(&["search", "--sync", "--pid", &browser.id().to_string()]);
    let window = String::from_utf8_lossy(&window.stdout)
        .lines()
        .last()
        .unwrap_or("")
        .to_owned();
    // Enter on the focused Run button, until the host has the run (the page may still be
    // loading the first time).
    let until = Instant::now() + Duration::from_secs(60);
    while !serve.store().iter().any(|r| r["kind"] == "run") {
        assert!(
            Instant::now() < until,
            "no run started after pressing Enter"
        );
        xdotool(&["windowfocus", "--sync", &window]);
        xdotool(&["key", "Return"]);
        std::thread::sleep(Duration::from_millis(700));
    }
    // --once: serve exits after that one complete run.
    let until = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(s) = serve.child.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < until,
            "serve --once did not exit after the run: {:?}",
            serve.store()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let _ = browser.kill();
    let _ = browser.wait();
    assert!(status.success(), "{status}");
    serve.store()
}

/// A complete run of 2 reps × 4 bodies, stored from a served page in WebKitGTK.
fn assert_complete_webkit_run(store: &[Value]) {
    let run = store.iter().find(|r| r["kind"] == "run").unwrap();
    assert_eq!(
        (run["browser"].as_str(), run["source"].as_str()),
        (Some("WebKitGTK"), Some("serve"))
    );
    assert!(run["user_agent"].as_str().unwrap().contains("AppleWebKit"));
    let end = store.iter().find(|r| r["kind"] == "run_end").unwrap();
    assert_eq!(end["status"], "complete");
    let samples: Vec<&Value> = store.iter().filter(|r| r["kind"] == "sample").collect();
    assert_eq!(samples.len(), 8, "2 reps × 4 bodies");
    assert_eq!(samples.iter().filter(|s| s["status"] == "ok").count(), 6);
}

const SERVE_SMALL: &[&str] = &["--once", "--size", "1MiB", "--reps", "2", "--warmup", "0"];

#[test]
fn serve_the_printed_url_opened_and_enter_pressed_stores_a_complete_run() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut serve = Serve::start(SERVE_SMALL, false);
    assert_complete_webkit_run(&press_run(&mut serve, &[]));
}

/// A phone reaches serve by a LAN name over plain HTTP, which is no secure context (no
/// crypto.subtle). Here MiniBrowser reaches it by the name `sink.test`, through serve
/// itself as its proxy (the sink serves absolute-form targets that name it): the same
/// kind of origin, with no DNS and nothing off this machine.
#[test]
fn a_device_reaching_serve_by_a_name_over_plain_http_runs_it_too() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let args = [
        &["--listen", "127.0.0.2:0", "--public-host", "sink.test"][..],
        SERVE_SMALL,
    ]
    .concat();
    let mut serve = Serve::start(&args, true);
    assert!(serve.url.starts_with("http://sink.test:"), "{}", serve.url);
    let proxy = format!("--proxy=http://127.0.0.2:{}", serve.port());
    let store = press_run(&mut serve, &[&proxy]);
    assert_complete_webkit_run(&store);
    // Measured against its own sink, reached at its own address.
    let run = store.iter().find(|r| r["kind"] == "run").unwrap();
    assert!(run["sink_ceiling_mbps"].as_f64().is_some(), "{run}");
}

#[test]
fn three_engines_in_one_command_make_one_table() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args([
            "run",
            "--browser",
            "chromium,firefox,webkit",
            "--size",
            "1MiB",
            "--reps",
            "2",
            "--warmup",
            "0",
            "--bodies",
            "Uint8Array,Blob",
            "--quiet",
        ])
        .env("UNOBSERVED_STATE_DIR", state.path())
        // No display: the run starts its own Xvfb for WebKit.
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = stdout
        .split("compared with")
        .nth(1)
        .unwrap_or_else(|| panic!("no cross-browser table:\n{stdout}"));
    for name in ["Chromium", "Firefox", "WebKitGTK"] {
        assert!(
            table.contains(name),
            "{name} missing from the table:\n{table}"
        );
    }
    // Every run of the three is complete and stored.
    let json = common::report(state.path(), &["--format", "json"]);
    let doc: Value = serde_json::from_str(&json).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    assert!(
        runs.iter().all(|r| r["run"]["status"] == "complete"),
        "{runs:?}"
    );
}
