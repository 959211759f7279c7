//! A gigabit LAN in a test: two network namespaces this test makes, joined by a veth
//! pair that carries only their own two addresses and is limited to 1 Gbit/s each way
//! by `tc ... tbf`. `unobserved sink --tls` runs in one, `unobserved run --sink-url` and
//! its browser in the other, so every upload, the host's own ceiling rounds and its
//! ledger claims cross the emulated link over pinned TLS: HTTP/2 for Chromium, and for
//! Firefox both HTTP/2 and HTTP/1.1 (`sink --transport h1-tls`). Both namespaces (and
//! with them the veth pair and its qdiscs) are removed when a test ends, failed or not;
//! the tests take turns, so one link is up at a time and no run shares the CPU with
//! another. A missing `ip` or `tc` fails the test; only a kernel that refuses to make a
//! namespace ends it early, and then it says so on the terminal. The sink's stderr goes
//! to a file that a failed test prints and keeps.

use serde_json::Value;
use std::io::{BufRead, Write};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;

mod common;
use common::BIN;

/// The emulated link's rate, as `tc` spells it.
const RATE: &str = "1gbit";
const SINK_ADDR: &str = "10.239.0.1";
const BROWSER_ADDR: &str = "10.239.0.2";
/// Each namespace's name starts so; the test process's id follows.
const PREFIX: &str = "uo-lan-";

/// One link at a time: the namespaces' names are the process's, and a run measures the
/// link's ceiling, which another run beside it would share.
static ONE_LINK: Mutex<()> = Mutex::new(());

fn one_link() -> std::sync::MutexGuard<'static, ()> {
    ONE_LINK.lock().unwrap_or_else(|p| p.into_inner())
}

/// `ip ARGS`, its stderr on failure.
fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip").args(args).output().unwrap_or_else(|e| {
        panic!("`ip` could not be started ({e}): install iproute2 (scripts/ensure-deps.sh)")
    });
    match out.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

fn must(args: &[&str]) {
    if let Err(e) = ip(args) {
        panic!("`ip {}` failed: {e}", args.join(" "));
    }
}

/// Said on the terminal itself, past the test harness's capture of passing tests.
fn loudly(what: &str) {
    let _ = writeln!(std::io::stderr(), "\n*** browsers_lan: {what} ***\n");
}

/// The two namespaces, removed on drop.
struct Lan {
    sink: String,
    browser: String,
}

impl Lan {
    /// None only where the kernel refuses to make a namespace.
    fn make() -> Option<Lan> {
        remove_stale();
        let pid = std::process::id();
        let (sink, browser) = (format!("{PREFIX}s{pid}"), format!("{PREFIX}b{pid}"));
        if let Err(e) = ip(&["netns", "add", &sink]) {
            let refused = [
                "Operation not permitted",
                "Permission denied",
                "not supported",
            ];
            assert!(
                refused.iter().any(|r| e.contains(r)),
                "`ip netns add` failed: {e}"
            );
            loudly(&format!(
                "NOT RUN: this kernel refuses network namespaces ({})",
                e.trim()
            ));
            return None;
        }
        let lan = Lan { sink, browser };
        lan.join();
        Some(lan)
    }

    /// The veth pair with one address at each end, both ends limited to `RATE`.
    fn join(&self) {
        let (vs, vb) = (
            format!("uos{}", std::process::id()),
            format!("uob{}", std::process::id()),
        );
        must(&["netns", "add", &self.browser]);
        must(&[
            "link",
            "add",
            &vs,
            "netns",
            &self.sink,
            "type",
            "veth",
            "peer",
            "name",
            &vb,
            "netns",
            &self.browser,
        ]);
        for (ns, dev, addr) in [
            (&self.sink, &vs, SINK_ADDR),
            (&self.browser, &vb, BROWSER_ADDR),
        ] {
            // No IPv6 link-local address: its duplicate-address check ends a second or
            // two after the link comes up, and Chromium takes that for a network change
            // (NETWORK_IP_ADDRESSES_CHANGED in its net log), closes every HTTP/2 session
            // and fails the upload in flight (ERR_NETWORK_CHANGED, "Failed to fetch" on
            // the page, "aborted after N bytes" at the sink). It hit the first measured
            // upload in 3 of 10 runs of this plan, and none of 10 runs without it.
            must(&["-n", ns, "link", "set", dev, "addrgenmode", "none"]);
            must(&["-n", ns, "addr", "add", &format!("{addr}/30"), "dev", dev]);
            must(&["-n", ns, "link", "set", dev, "up"]);
            must(&["-n", ns, "link", "set", "lo", "up"]);
            let tbf = [
                "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", RATE,
                "burst", "256kb", "latency", "20ms",
            ];
            must(&tbf);
        }
    }

    /// `BIN ARGS` inside namespace `ns`, with its own state dir.
    fn command(&self, ns: &str, state: &std::path::Path, args: &[&str]) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns, BIN])
            .args(args)
            .env("UNOBSERVED_STATE_DIR", state);
        c
    }
}

impl Drop for Lan {
    fn drop(&mut self) {
        for ns in [&self.sink, &self.browser] {
            if let Err(e) = ip(&["netns", "del", ns]) {
                loudly(&format!("could not remove namespace {ns}: {e}"));
            }
        }
    }
}

/// Namespaces a killed earlier run of this test left behind (its process is gone).
fn remove_stale() {
    let out = Command::new("ip").args(["netns", "list"]).output();
    let listed = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    for name in listed
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
    {
        let pid = name
            .strip_prefix(PREFIX)
            .map(|r| r.trim_start_matches(['s', 'b']));
        if pid.is_some_and(|p| !std::path::Path::new(&format!("/proc/{p}")).exists()) {
            let _ = ip(&["netns", "del", name]);
        }
    }
}

/// The sink in its namespace, killed on drop (before the namespaces go). Its stderr
/// (the certificate, one line per request, every refusal and abort) is written to
/// `log`; a test that fails prints it and keeps the file.
struct Sink {
    child: Child,
    url: String,
    log: std::path::PathBuf,
    _state: tempfile::TempDir,
}

impl Sink {
    /// `unobserved sink --listen SINK_ADDR:0` and `args` (e.g. `--tls`).
    fn start(lan: &Lan, args: &[&str]) -> Sink {
        let state = tempfile::tempdir().unwrap();
        let log = state.path().join("sink.stderr");
        let listen = format!("{SINK_ADDR}:0");
        let mut child = lan
            .command(&lan.sink, state.path(), &["sink", "--listen", &listen])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut url = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        let url = url.trim().to_owned();
        assert!(url.starts_with(&format!("https://{SINK_ADDR}:")), "{url:?}");
        Sink {
            child,
            url,
            log,
            _state: state,
        }
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            let kept = std::env::temp_dir().join(format!(
                "unobserved-lan-sink-{}-{}.stderr",
                std::process::id(),
                self.child.id()
            ));
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            let _ = std::fs::copy(&self.log, &kept);
            loudly(&format!(
                "the sink's stderr, kept at {}:\n{text}",
                kept.display()
            ));
        }
    }
}

/// What one `unobserved run` across the link asks for.
struct Ask<'a> {
    browser: &'a str,
    size: &'a str,
    reps: &'a str,
    warmup: &'a str,
    bodies: &'a str,
}

/// `unobserved run` with `ask.browser` in the browser's namespace: the document's one
/// run, every sample judged from the remote sink's ledger.
fn run_across(lan: &Lan, sink: &Sink, ask: &Ask) -> Value {
    let state = tempfile::tempdir().unwrap();
    let json = state.path().join("run.json");
    let args = [
        "run",
        "--browser",
        ask.browser,
        "--quiet",
        "--connect-timeout",
        "90",
        "--sink-url",
        &sink.url,
        "--size",
        ask.size,
        "--reps",
        ask.reps,
        "--warmup",
        ask.warmup,
        "--bodies",
        ask.bodies,
        "--json",
        json.to_str().unwrap(),
    ];
    let out = lan
        .command(&lan.browser, state.path(), &args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "`unobserved run` across the link failed ({}). Is {} installed?\nstdout:\n{}\nstderr:\n{}",
        out.status,
        ask.browser,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    common::runs::assert_matches_schema(&doc);
    let run = doc["runs"][0].clone();
    assert_eq!(run["run"]["sink"], "remote", "{}", run["run"]);
    common::runs::assert_judged_from_the_ledger(&run);
    run
}

fn mbps(v: &Value) -> f64 {
    v["receive_mbps"]
        .as_f64()
        .unwrap_or_else(|| panic!("no ceiling: {v}"))
}

#[test]
fn chromium_across_an_emulated_gigabit_lan_reads_the_links_ceiling_beside_every_arm() {
    let _turn = one_link();
    let Some(lan) = Lan::make() else { return };
    let sink = Sink::start(&lan, &["--tls"]);
    let ask = Ask {
        browser: "chromium",
        size: "16MiB",
        reps: "3",
        warmup: "1",
        bodies: "Blob,ReadableStream",
    };
    let run = run_across(&lan, &sink, &ask);
    assert_eq!(run["run"]["status"], "complete", "{}", run["run"]);
    let (before, after) = (
        &run["run"]["transport_ceilings"]["h2"],
        &run["run"]["ceilings_after"]["h2"],
    );
    let carried = mbps(before).max(mbps(after));
    assert!(
        (900.0..=1000.0).contains(&carried),
        "the link's ceiling over pinned TLS and h2: {carried} Mbps (before {before}, after {after})"
    );
    let fastest_round = [before, after]
        .iter()
        .filter_map(|c| c["receive_range"][1].as_f64())
        .fold(0.0, f64::max);
    for body in ["Blob", "ReadableStream"] {
        arm_within_the_link(&run, body, fastest_round);
    }
}

/// Every upload of `body` crossed over h2 and arrived whole, its record claimed from the
/// remote ledger; its median is within what the link carried, and a typed note says
/// whether its bytes crossed at the link's speed.
fn arm_within_the_link(run: &Value, body: &str, fastest_round: f64) {
    let samples: Vec<&Value> = run["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["arm"]["body"] == body)
        .collect();
    assert_eq!(samples.len(), 3, "three reps of {body}");
    // A rep that failed on the way ("Failed to fetch" after 12 of 16 MiB, once in nine
    // reps: Chromium's ERR_NETWORK_CHANGED when the veth's IPv6 link-local address
    // settled, now prevented in `join`) must never be called intact; at least two of
    // the three must arrive whole.
    let (ok, failed): (Vec<&Value>, Vec<&Value>) =
        samples.into_iter().partition(|s| s["status"] == "ok");
    for s in &failed {
        eprintln!("LOUD: a {body} rep failed on the emulated link: {s}");
        assert_eq!(s["intact"], false, "{s}");
    }
    assert!(
        ok.len() >= 2,
        "{body}: {} of 3 reps arrived whole",
        ok.len()
    );
    for s in &ok {
        assert_eq!(
            (&s["status"], &s["protocol"], &s["receipt"]),
            (&"ok".into(), &"h2".into(), &"found".into()),
            "{s}"
        );
        assert_eq!(s["sha256_received"], s["sha256_sent"], "{s}");
        assert_eq!(s["bytes_received"], 16 << 20, "{s}");
    }
    let arm = run["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["arm"]["body"] == body)
        .unwrap();
    let median = arm["median_mbps"].as_f64().unwrap();
    assert!(
        median <= fastest_round,
        "{body}'s median {median} Mbps above the link's fastest round {fastest_round}"
    );
    let note = run["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["kind"] == "link-wire" && n["arm"] == arm["arm"]["label"]);
    assert!(
        note.is_some_and(|n| n["limit"] == "link" || n["limit"] == "browser"),
        "{body}: {note:?}"
    );
}

/// Firefox across the link over pinned TLS, once per transport the sink offers: h2
/// (`sink --tls`) and HTTP/1.1 alone (`sink --transport h1-tls`). Every sample's record
/// is the remote sink's (its protocol is what that sink saw), and the link's ceiling is
/// measured over the same transport. Small runs: Firefox's h2 and h1 figures are in
/// BENCHMARKS.md, not here.
#[test]
fn firefox_across_an_emulated_gigabit_lan_over_pinned_tls_h2_and_h1_is_judged_by_the_remote_sink() {
    let _turn = one_link();
    let Some(lan) = Lan::make() else { return };
    for (offer, transport, protocol) in [
        (&["--tls"][..], "h2", "h2"),
        (&["--transport", "h1-tls"][..], "h1-tls", "http/1.1"),
    ] {
        let sink = Sink::start(&lan, offer);
        let ask = Ask {
            browser: "firefox",
            size: "8MiB",
            reps: "2",
            warmup: "0",
            bodies: "Uint8Array,Blob",
        };
        let run = run_across(&lan, &sink, &ask);
        assert_eq!(run["run"]["status"], "complete", "{}", run["run"]);
        let ceiling = mbps(&run["run"]["transport_ceilings"][transport]);
        assert!(
            ceiling > 0.0 && ceiling <= 1000.0,
            "{transport}: the link's ceiling {ceiling} Mbps is not a gigabit link's"
        );
        let samples = run["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 4, "two reps of two bodies over {transport}");
        for s in samples {
            assert_eq!(
                (&s["status"], &s["intact"], &s["receipt"]),
                (&"ok".into(), &true.into(), &"found".into()),
                "{s}"
            );
            assert_eq!(s["arm"]["transport"], transport, "{s}");
            assert_eq!(
                s["protocol"], protocol,
                "the sink's record over {transport}: {s}"
            );
            assert_eq!(s["bytes_received"], 8 << 20, "{s}");
            assert_eq!(s["sha256_received"], s["sha256_sent"], "{s}");
        }
    }
}
