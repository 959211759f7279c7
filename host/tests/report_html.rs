//! The HTML report, rendered by real headless Chromium (--dump-dom, no debugger): one
//! bar per arm, and the numbers in the DOM are the store's.

mod common;
use common::BIN;
use serde_json::json;
use std::process::Command;

/// Chromium, found the way `unobserved run` finds it.
fn chromium() -> std::path::PathBuf {
    unobserved::launch::browsers::by_key("chromium")
        .unwrap()
        .find()
        .expect("Chromium is needed: scripts/ensure-deps.sh installs it")
}

fn sample(body: &str, rep: u32, mbps: f64, status: &str) -> serde_json::Value {
    json!({"kind": "sample", "run_id": "html-1", "body": body, "rep": rep, "browser": "Chromium",
           "browser_version": "156", "os": "Linux", "extension_version": "0.1.0",
           "bytes_sent": 1000, "bytes_received": if status == "ok" { 1000 } else { 23 },
           "sha256_sent": "a", "sha256_received": if status == "ok" { "a" } else { "b" },
           "intact": status == "ok", "status": status, "error": null, "page_ms": 10.0, "sink_ms": 9.5,
           "mbps": mbps, "head": "[object ReadableStream]", "observed": {"webdriver": false}})
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// A stored run of Uint8Array, Blob and a corrupted ReadableStream, 4 reps each.
fn store_with_a_run(state: &std::path::Path) {
    let u8: Vec<f64> = vec![101.0, 99.0, 120.0, 95.0];
    let blob: Vec<f64> = vec![1790.0, 1850.0, 1700.0, 1820.0];
    let mut lines = vec![
        json!({"kind": "run", "run_id": "html-1", "browser": "Chromium", "browser_version": "156",
        "os": "Linux", "extension_version": "0.1.0", "plan": {"size_bytes": 1000, "reps": 4, "warmup": 0,
        "bodies": ["Uint8Array", "Blob", "ReadableStream"]}, "source": "job", "host_version": "0.1.0",
        "recorded_at": "2026-11-30T00:00:00Z", "sink_ceiling_mbps": 2400.0, "cpu": "Test CPU"}),
    ];
    for rep in 0..4 {
        lines.push(sample("Uint8Array", rep, u8[rep as usize], "ok"));
        lines.push(sample("Blob", rep, blob[rep as usize], "ok"));
        lines.push(sample("ReadableStream", rep, 0.0, "corrupted"));
    }
    lines.push(json!({"kind": "run_end", "run_id": "html-1", "status": "complete", "reason": null, "recorded_at": "2026-11-30T00:01:00Z"}));
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(state.join("results.jsonl"), text).unwrap();
}

fn report(state: &std::path::Path, format: &str) -> String {
    common::report(state, &["--format", format, "--run", "last"])
}

#[test]
fn table_csv_and_markdown_from_the_command_line() {
    let state = tempfile::tempdir().unwrap();
    store_with_a_run(state.path());
    let table = report(state.path(), "table");
    assert!(
        table.lines().next().unwrap().contains("run html-1"),
        "{table}"
    );
    for arm in ["Uint8Array", "Blob", "ReadableStream"] {
        assert_eq!(
            table.lines().filter(|l| l.starts_with(arm)).count(),
            1,
            "{table}"
        );
    }
    let csv = report(state.path(), "csv");
    let mut rows = csv.lines();
    let header: Vec<&str> = rows.next().unwrap().split(',').collect();
    assert!(
        header.contains(&"status") && header.contains(&"mbps"),
        "{header:?}"
    );
    assert_eq!(rows.count(), 12, "one row per stored sample");
    let md = report(state.path(), "markdown");
    let table_rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ")).collect();
    // A header, its separator row next, then one row per arm.
    let after_header = md.lines().skip_while(|l| *l != table_rows[0]).nth(1);
    assert!(
        after_header.is_some_and(|l| l.starts_with("|-") || l.starts_with("| -")),
        "{md}"
    );
    for arm in ["Uint8Array", "Blob", "ReadableStream"] {
        assert!(
            table_rows
                .iter()
                .any(|r| r.starts_with(&format!("| {arm} "))),
            "{md}"
        );
    }
}

#[test]
fn html_report_renders_one_bar_per_arm_with_the_stored_numbers() {
    let state = tempfile::tempdir().unwrap();
    store_with_a_run(state.path());
    let u8: Vec<f64> = vec![101.0, 99.0, 120.0, 95.0];
    let blob: Vec<f64> = vec![1790.0, 1850.0, 1700.0, 1820.0];

    let html = state.path().join("report.html");
    let out = Command::new(BIN)
        .args(["report", "--format", "html", "--run", "last", "--output"])
        .arg(&html)
        .env("UNOBSERVED_STATE_DIR", state.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let dom = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--dump-dom",
        ])
        .arg(format!(
            "--user-data-dir={}",
            state.path().join("profile").display()
        ))
        .arg(format!("file://{}", html.display()))
        .env("HOME", state.path())
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains("<svg class=\"chart\""),
        "no chart in the rendered DOM:\n{dom}"
    );

    let bars: Vec<(String, String)> = dom
        .split("<rect class=\"bar\" ")
        .skip(1)
        .map(|chunk| {
            let attr = |name: &str| {
                chunk
                    .split(&format!("{name}=\""))
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .to_owned()
            };
            (attr("data-body"), attr("data-median"))
        })
        .collect();
    assert_eq!(
        bars.iter().map(|b| b.0.as_str()).collect::<Vec<_>>(),
        ["Uint8Array", "Blob", "ReadableStream"],
        "one bar per arm"
    );
    assert!((bars[0].1.parse::<f64>().unwrap() - median(u8)).abs() < 1e-3);
    assert!((bars[1].1.parse::<f64>().unwrap() - median(blob)).abs() < 1e-3);
    assert_eq!(bars[2].1, "", "no median for a corrupted arm");
    assert!(
        dom.contains("data-ceiling=\"2400.000\""),
        "the sink ceiling is drawn"
    );
    // Blob's median (1805) is over 70% of the 2400 ceiling: flagged.
    // The badge sits in Blob's own row; the warning paragraph alone must not pass.
    let row_of = |arm: &str| -> String {
        let start = format!(r#"<tr data-body="{arm}">"#);
        let row = dom
            .split(&start)
            .nth(1)
            .unwrap_or_else(|| panic!("no row for {arm}:\n{dom}"));
        row.split("</tr>").next().unwrap_or("").to_owned()
    };
    assert!(
        row_of("Blob").contains(r#"class="badge warn""#),
        "sink-bound badge missing"
    );
    assert!(!row_of("Uint8Array").contains(r#"class="badge warn""#));
    // What the JSON of the same store says, typed: ReadableStream corrupted in every rep,
    // Blob faster than Uint8Array, the run unobserved. In the DOM, by markup: the corrupted
    // arm's integrity marked bad (Blob's, intact, good) and the run's first badge (observed
    // or not) good. Every word of the report is in the HTML by export's unit tests
    // (`assert_same_content`), which pin them.
    let json: serde_json::Value =
        serde_json::from_str(&common::report(state.path(), &["--format", "json"])).unwrap();
    let run = &json["runs"][0];
    assert_eq!(run["summary"][2]["statuses"], json!({"corrupted": 4}));
    assert!(row_of("ReadableStream").contains(r#"class="badge bad""#));
    let blob_vs_u8 = &run["comparisons"][0];
    assert_eq!(
        (
            &blob_vs_u8["arm"]["arm"]["body"],
            &blob_vs_u8["baseline"]["arm"]["body"]
        ),
        (&json!("Blob"), &json!("Uint8Array"))
    );
    assert_eq!(blob_vs_u8["verdict"], "faster");
    assert!(row_of("Blob").contains(r#"class="badge good""#));
    assert_eq!(run["run"]["observed"], "no");
    assert!(
        dom.contains(r#"</h2><p><span class="badge good">"#),
        "the observed badge"
    );
    // The stored CPU (data, not words) is shown.
    assert!(dom.contains("Test CPU"));
}
