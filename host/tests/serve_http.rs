//! `unobserved serve` spoken to over HTTP as a page (or a forger) would, with no
//! browser: what a page may start, which runs it may write, the token, the size cap,
//! the rate limits, a second device by its public name, and the QR code.

mod common;

use common::serve::{request, Serve};
use serde_json::{json, Value};

const SMALL: &[&str] = &[
    "--size", "1KiB", "--reps", "1", "--warmup", "0", "--bodies", "Blob",
];

fn runs_in(serve: &Serve) -> Vec<Value> {
    serve
        .store()
        .into_iter()
        .filter(|r| r["kind"] == "run")
        .collect()
}

#[test]
fn a_page_can_start_only_the_offered_plan_and_write_only_its_own_run() {
    let serve = Serve::start(SMALL, false);
    let offer = serve.call("GET", "offer", None);
    assert_eq!(
        (offer.status, offer.body["plan"]["size_bytes"].as_u64()),
        (200, Some(1024)),
        "{offer:?}"
    );
    // A page asking for a plan and a run id of its own gets the offer's.
    let asked = json!({"plan": {"size_bytes": 1 << 30, "reps": 1000, "warmup": 0, "bodies": ["Uint8Array"]},
        "run_id": "chosen-by-the-page"});
    let started = serve.call("POST", "start", Some(&asked));
    assert_eq!(started.status, 200, "{started:?}");
    let run_id = started.body["run_id"].as_str().unwrap().to_owned();
    assert_ne!(run_id, "chosen-by-the-page");
    let runs = runs_in(&serve);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["plan"]["size_bytes"], 1024);
    assert_eq!(runs[0]["plan"]["bodies"], json!(["Blob"]));
    // The browser as the request showed it, the raw user agent kept.
    assert_eq!(runs[0]["browser"], "WebKitGTK");
    assert!(runs[0]["user_agent"]
        .as_str()
        .unwrap()
        .contains("AppleWebKit/605.1.15"));
    let sample = json!({"body": "Blob", "rep": 0, "bytes_sent": 1024, "bytes_received": 1024,
        "sha256_sent": "aa", "sha256_received": "aa", "intact": true, "status": "ok",
        "error": null, "page_ms": 1.0, "sink_ms": 1.0, "mbps": 8.0, "arm": {"kind": "body", "body": "Blob"}});
    let key = started.body["run_key"].as_str().unwrap();
    // A run this serve never started, and this run with another key: the same refusal.
    for (run, key) in [
        ("20261201-000000-0000", key),
        (run_id.as_str(), "0".repeat(32).as_str()),
    ] {
        let r = serve.call(
            "POST",
            &format!("runs/{run}/samples"),
            Some(&json!({"key": key, "samples": [sample]})),
        );
        assert_eq!(
            (r.status, r.body["name"].as_str()),
            (404, Some("unknown-run")),
            "{run}: {r:?}"
        );
        let r = serve.call(
            "POST",
            &format!("runs/{run}/run-finished"),
            Some(&json!({"key": key, "status": "complete"})),
        );
        assert_eq!(r.status, 404, "{r:?}");
    }
    let store = serve.store();
    assert!(
        !store
            .iter()
            .any(|r| r["kind"] == "sample" || r["kind"] == "run_end"),
        "{store:?}"
    );
}

#[test]
fn without_the_token_nothing_is_offered_or_started() {
    let serve = Serve::start(SMALL, false);
    let addr = format!("127.0.0.1:{}", serve.port());
    let wrong = "0".repeat(32);
    for path in [
        format!("/serve/{wrong}/start"),
        "/serve//start".to_owned(),
        "/serve/start".to_owned(),
    ] {
        let r = request(&addr, &serve.authority(), "POST", &path, &[], Some(b"{}"));
        assert_eq!(r.status, 403, "{path}: {r:?}");
    }
    let r = request(
        &addr,
        &serve.authority(),
        "GET",
        &format!("/serve/{wrong}/offer"),
        &[],
        None,
    );
    assert_eq!(r.status, 403);
    assert!(runs_in(&serve).is_empty());
}

#[test]
fn a_message_over_the_cap_is_refused_and_starts_past_a_peers_burst_are_rate_limited() {
    // One start a minute after the burst: none refills while four starts are answered,
    // however slow the machine.
    let serve = Serve::start(&[SMALL, &["--starts-per-minute", "1"][..]].concat(), false);
    let big = json!({"hints": {"brands": [{"brand": "x".repeat(300 * 1024), "version": "1"}]}});
    let r = serve.call("POST", "start", Some(&big));
    assert_eq!(r.status, 413, "{:?}", r.status);
    assert!(runs_in(&serve).is_empty());
    let statuses: Vec<u16> = (0..4)
        .map(|_| serve.call("POST", "start", None).status)
        .collect();
    assert_eq!(statuses, [200, 200, 200, 429]);
    assert_eq!(runs_in(&serve).len(), 3);
}

#[test]
fn a_second_device_reaches_serve_by_its_public_name_and_other_names_are_refused() {
    let serve = Serve::start(
        &[
            &["--listen", "127.0.0.2:0", "--public-host", "sink.test"][..],
            SMALL,
        ]
        .concat(),
        true,
    );
    let port = serve.port();
    assert_eq!(
        serve.authority(),
        format!("sink.test:{port}"),
        "{}",
        serve.url
    );
    let addr = format!("127.0.0.2:{port}");
    let named = format!("sink.test:{port}");
    let page = request(&addr, &named, "GET", "/bench/serve.html", &[], None);
    assert_eq!(page.status, 200);
    for other in [
        format!("evil.example:{port}"),
        format!("sink.test:{}", port + 1),
        "sink.test".to_owned(),
    ] {
        let r = request(&addr, &other, "GET", "/bench/serve.html", &[], None);
        assert_eq!(r.status, 421, "{other}");
        let r = request(
            &addr,
            &other,
            "POST",
            &format!("/serve/{}/start", serve.token()),
            &[],
            Some(b"{}"),
        );
        assert_eq!(r.status, 421, "{other}");
    }
    // A foreign page on the device cannot call it either.
    let r = request(
        &addr,
        &named,
        "POST",
        &format!("/serve/{}/start", serve.token()),
        &[("origin", "http://evil.example")],
        Some(b"{}"),
    );
    assert_eq!(r.status, 403);
    let started = request(
        &addr,
        &named,
        "POST",
        &format!("/serve/{}/start", serve.token()),
        &[],
        Some(b"{}"),
    );
    assert_eq!(started.status, 200, "{started:?}");
    // The device uploads to the name it reached the page by.
    let h1 = started.body["upload_urls"]["h1"].as_str().unwrap();
    assert!(h1.starts_with(&format!("http://{named}/upload/")), "{h1}");
}

/// The printed code, module by module: each character is two modules stacked, drawn
/// light (the terminal's text) or left dark (its background).
fn modules(qr: &[String]) -> Vec<Vec<bool>> {
    let mut rows = Vec::new();
    for line in qr {
        let (mut upper, mut lower) = (Vec::new(), Vec::new());
        for c in line.chars() {
            let (u, l) = match c {
                ' ' => (true, true),
                '▀' => (false, true),
                '▄' => (true, false),
                '█' => (false, false),
                other => panic!("unexpected character {other:?} in the QR code"),
            };
            upper.push(u);
            lower.push(l);
        }
        rows.push(upper);
        rows.push(lower);
    }
    rows
}

#[test]
fn the_printed_qr_code_decodes_to_exactly_the_url() {
    let serve = Serve::start(
        &["--listen", "127.0.0.2:0", "--public-host", "sink.test"],
        true,
    );
    assert!(!serve.qr.is_empty(), "a public serve prints a QR code");
    let rows = modules(&serve.qr);
    // A grey-scale image, 8 pixels a module, dark modules black.
    let scale = 8;
    let (w, h) = (rows[0].len() * scale, rows.len() * scale);
    let mut pgm = format!("P5 {w} {h} 255\n").into_bytes();
    for row in &rows {
        for _ in 0..scale {
            for &dark in row {
                pgm.extend(std::iter::repeat_n(if dark { 0u8 } else { 255 }, scale));
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("qr.pgm");
    std::fs::write(&image, pgm).unwrap();
    let out = std::process::Command::new("zbarimg")
        .args(["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable"])
        .arg(&image)
        .output()
        .expect("zbarimg (scripts/ensure-deps.sh installs zbar-tools)");
    assert!(
        out.status.success(),
        "zbarimg found no code: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim_end(), serve.url);
}

/// Issue 36: the browser of a page on this machine is the run's own, not other work.
/// The "page" here is this test process: it starts the run over loopback, keeps one
/// core busy while the run measures, and ends it. Serve finds this process as the
/// owner of the connection's socket (/proc/net/tcp, /proc/<pid>/fd) and counts that
/// core as the run's own; without that, it would read as other work.
#[cfg(target_os = "linux")]
#[test]
fn a_page_on_this_machine_has_its_browsers_cpu_counted_as_the_runs_own() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let serve = Serve::start(SMALL, false);
    let started = serve.call("POST", "start", Some(&json!({})));
    assert_eq!(started.status, 200, "{started:?}");
    let run_id = started.body["run_id"].as_str().unwrap().to_owned();
    let key = started.body["run_key"].as_str().unwrap().to_owned();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let busy = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut x = 0u64;
            while !stop.load(Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(2500));
    stop.store(true, Ordering::Relaxed);
    busy.join().unwrap();
    let ended = serve.call(
        "POST",
        &format!("runs/{run_id}/run-finished"),
        Some(&json!({"key": key, "status": "complete"})),
    );
    assert_eq!(ended.status, 200, "{ended:?}");
    let store = serve.store();
    let block = store
        .iter()
        .find(|r| r["kind"] == "conditions")
        .unwrap_or_else(|| panic!("no conditions record: {store:?}"));
    let state = &block["state"];
    // One core busy for the run's whole 2.5 s measured as its own (0.6: room for the
    // thread being scheduled late), and the browser known.
    assert!(state["own_cores"].as_f64().unwrap() >= 0.6, "{state}");
    assert_ne!(state["gap"], "browser-unknown", "{state}");
}

/// The load token serve put into one copy of its page, fetched with `headers` (empty
/// when it put none).
fn page_load(serve: &Serve, headers: &[(&str, &str)]) -> String {
    let addr = format!("127.0.0.1:{}", serve.port());
    let page = request(
        &addr,
        &serve.authority(),
        "GET",
        "/bench/serve.html",
        headers,
        None,
    );
    assert_eq!(page.status, 200);
    let slot = r#"<meta name="unobserved-load" content=""#;
    let at = page.text.find(slot).expect("the page has its load slot") + slot.len();
    page.text[at..].split('"').next().unwrap().to_owned()
}

const NAVIGATION: &[(&str, &str)] = &[
    ("sec-fetch-dest", "document"),
    ("sec-fetch-mode", "navigate"),
];

/// Four reps of 1 KiB in blocks of two: the page hands the second block to a fresh page.
const IN_BLOCKS: &[&str] = &[
    "--size",
    "1KiB",
    "--reps",
    "4",
    "--block-reps",
    "2",
    "--warmup",
    "0",
    "--bodies",
    "Blob",
];

/// Uploads 1 KiB under `id` and reports it as rep `rep` from the page with token `load`,
/// the page claiming to be page 5.
fn report_rep(serve: &Serve, run: &Value, load: &str, rep: u32) {
    let (id, key) = (
        run["run_id"].as_str().unwrap(),
        run["run_key"].as_str().unwrap(),
    );
    let body = vec![b'b'; 1024];
    let upload = format!(
        "{}?run={id}&upload=u{rep}",
        run["upload_urls"]["h1"].as_str().unwrap()
    );
    let mut r = ureq::put(&upload).send(&body[..]).unwrap();
    let _ = r.body_mut().read_to_string();
    let sha = hex::encode(ring::digest::digest(&ring::digest::SHA256, &body));
    let sample = json!({"body": "Blob", "rep": rep, "upload_id": format!("u{rep}"), "bytes_sent": 1024,
        "sha256_sent": sha, "bytes_received": 1024, "sha256_received": sha, "intact": true, "status": "ok", "error": null, "page_ms": 1.0, "page_load": 5,
        "arm": {"kind": "body", "body": "Blob"}, "observed": {"webdriver": false}});
    let r = serve.call(
        "POST",
        &format!("runs/{id}/samples"),
        Some(&json!({"key": key, "load": load, "samples": [sample]})),
    );
    assert_eq!(r.status, 200, "{r:?}");
}

/// A page message about `run` from the page with token `load`.
fn page_says(serve: &Serve, run: &Value, what: &str, load: &str, rep: u32) -> common::serve::Reply {
    let (id, key) = (
        run["run_id"].as_str().unwrap(),
        run["run_key"].as_str().unwrap(),
    );
    serve.call(
        "POST",
        &format!("runs/{id}/{what}"),
        Some(&json!({"key": key, "load": load, "rep": rep})),
    )
}

/// Issue 36 over HTTP: the page hands each block after the first to a fresh copy of
/// itself. Serve numbers the pages by the tokens it put into the copies it served to a
/// navigation, grants a fresh page only at a block's first rep to the current page, and
/// lets only a copy it served take over; the page's own `page_load` is not asked.
#[test]
fn a_fresh_page_per_block_is_numbered_by_the_copies_serve_served_not_by_the_page() {
    let serve = Serve::start(IN_BLOCKS, false);
    // A fetch() of the page gets no token; a navigation does.
    assert_eq!(
        page_load(
            &serve,
            &[("sec-fetch-dest", "empty"), ("sec-fetch-mode", "cors")]
        ),
        ""
    );
    let first = page_load(&serve, NAVIGATION);
    assert_eq!(first.len(), 32, "{first:?}");
    let run = serve
        .call("POST", "start", Some(&json!({"load": first})))
        .body;
    assert_eq!(run["fresh_pages"], true, "{run}");
    for rep in [0, 1] {
        report_rep(&serve, &run, &first, rep);
    }
    let refused = page_says(&serve, &run, "new-page", &first, 1);
    assert_eq!(
        (refused.status, refused.body["kind"].as_str()),
        (409, Some("not-a-block-start")),
        "{refused:?}"
    );
    assert_eq!(page_says(&serve, &run, "new-page", &first, 2).status, 200);
    // The old page cannot take over itself: only a copy served since can.
    let refused = page_says(&serve, &run, "ready", &first, 0);
    assert_eq!(refused.body["kind"], "unknown-load", "{refused:?}");
    let fresh = page_load(&serve, NAVIGATION);
    let resumed = page_says(&serve, &run, "ready", &fresh, 0);
    assert_eq!(
        (resumed.status, &resumed.body["resume"]["rep"]),
        (200, &json!(2)),
        "{resumed:?}"
    );
    assert_eq!(resumed.body["run_id"], run["run_id"]);
    for rep in [2, 3] {
        report_rep(&serve, &run, &fresh, rep);
    }
    let (id, key) = (
        run["run_id"].as_str().unwrap(),
        run["run_key"].as_str().unwrap(),
    );
    let end = serve.call(
        "POST",
        &format!("runs/{id}/run-finished"),
        Some(&json!({"key": key, "load": fresh, "status": "complete"})),
    );
    assert_eq!(end.status, 200, "{end:?}");
    let store = serve.store();
    let samples: Vec<(u64, u64, bool)> = store
        .iter()
        .filter(|r| r["kind"] == "sample")
        .map(|s| {
            (
                s["rep"].as_u64().unwrap(),
                s["page_load"].as_u64().unwrap(),
                s["intact"] == true,
            )
        })
        .collect();
    assert_eq!(
        samples,
        [(0, 0, true), (1, 0, true), (2, 1, true), (3, 1, true)]
    );
    let pages: Vec<&Value> = store
        .iter()
        .filter(|r| r["kind"] == "conditions")
        .map(|r| &r["page"])
        .collect();
    assert_eq!(
        pages,
        [
            &json!({"kind": "own", "load": 0}),
            &json!({"kind": "own", "load": 1})
        ],
        "{store:?}"
    );
}

/// A page that reloads itself for its next block and never comes back (a phone that
/// lost the page, a tab closed mid-reload): once `--page-return` has passed since serve
/// granted the fresh page, serve ends the run `incomplete`, typed `page-not-back`,
/// keeping every sample stored; a page coming back after that is refused.
#[test]
fn a_fresh_page_that_never_comes_back_ends_its_run_incomplete_after_the_page_return() {
    let serve = Serve::start(&[IN_BLOCKS, &["--page-return", "1"]].concat(), false);
    let first = page_load(&serve, NAVIGATION);
    let run = serve
        .call("POST", "start", Some(&json!({"load": first})))
        .body;
    for rep in [0, 1] {
        report_rep(&serve, &run, &first, rep);
    }
    assert_eq!(page_says(&serve, &run, "new-page", &first, 2).status, 200);
    let ended = |store: &[Value]| -> Option<Value> {
        store.iter().find(|r| r["kind"] == "run_end").cloned()
    };
    // Within the page return the run stays open.
    assert_eq!(ended(&serve.store()), None);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let end = loop {
        if let Some(end) = ended(&serve.store()) {
            break end;
        }
        assert!(std::time::Instant::now() < deadline, "the run never ended");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(
        (&end["status"], &end["end_reason"]),
        (&json!("incomplete"), &json!("page-not-back")),
        "{end}"
    );
    let store = serve.store();
    let reps: Vec<u64> = store
        .iter()
        .filter(|r| r["kind"] == "sample" && r["intact"] == true)
        .map(|s| s["rep"].as_u64().unwrap())
        .collect();
    assert_eq!(reps, [0, 1]);
    let late = page_load(&serve, NAVIGATION);
    let refused = page_says(&serve, &run, "ready", &late, 0);
    assert_eq!(
        (refused.status, refused.body["kind"].as_str()),
        (409, Some("ended")),
        "{refused:?}"
    );
}

/// A plan of loads takes a whole block of each before any budget may stop it: the offer
/// and the start say how many reps that is, for the page to show.
#[test]
fn the_offer_and_the_start_say_the_reps_a_plan_of_loads_takes() {
    let serve = Serve::start(
        &[
            "--size",
            "1KiB",
            "--reps",
            "2",
            "--block-reps",
            "3",
            "--load",
            "none,cpu",
            "--warmup",
            "0",
            "--bodies",
            "Blob",
        ],
        false,
    );
    let offer = serve.call("GET", "offer", None);
    assert_eq!(offer.body["minimum_reps"], 6, "{offer:?}");
    let started = serve.call("POST", "start", None);
    assert_eq!(started.body["minimum_reps"], 6, "{started:?}");
    assert_eq!(started.body["measured_uploads"], 6, "one arm, six reps");
}
