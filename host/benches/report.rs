//! `unobserved report` of one huge run, end to end: the real binary reads a store with
//! a small run and a run of PER_ARM samples in each of two arms, then reports the big
//! run (JSON), the small one, and the list. Wall time and the child's peak RSS
//! (getrusage of the finished child) for each.
//!
//! `cargo bench --bench report` (env: BENCH_PER_ARM=100000, BENCH_ROUNDS=3,
//! BENCH_TIMELINE_POINTS=0: with N, every sample carries a sink timeline of N points,
//! as samples stored since issue 32 do).

#[path = "../tests/common/mod.rs"]
mod common;

use common::env_u64;
use std::io::Write;
use std::process::Command;
use std::time::Instant;

/// A stored sample's `timeline` of `points` points (64 KiB frames, 0.1 ms apart), and
/// its `page_timing`; empty for none.
fn timeline_fields(points: u64) -> String {
    if points == 0 {
        return String::new();
    }
    let p: Vec<String> = (1..=points)
        .map(|i| format!("[{:.2},{}]", i as f64 * 0.1, i * 65536))
        .collect();
    format!(
        r#","page_timing":{{"request_start_ms":80.5,"response_start_ms":119.9,"response_end_ms":121.3}},"timeline":{{"v":1,"sink_clock_ms":5021.37,"first_byte_ms":0.1,"last_byte_ms":{:.2},"bytes":{},"bucket_ms":0.1,"points":[{}],"stalls":[],"stall_count":0,"stalled_ms":0.0}}"#,
        points as f64 * 0.1,
        points * 65536,
        p.join(",")
    )
}

fn sample_line(run: &str, body: &str, rep: u64, mbps: f64) -> String {
    static TIMELINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let timeline = TIMELINE.get_or_init(|| timeline_fields(env_u64("BENCH_TIMELINE_POINTS", 0)));
    format!(
        r#"{{"kind":"sample","run_id":"{run}","body":"{body}","rep":{rep},"browser":"Chromium","browser_version":"156","os":"Linux","extension_version":"0.1.0","bytes_sent":33554432,"bytes_received":33554432,"sha256_sent":"{h}","sha256_received":"{h}","intact":true,"status":"ok","error":null,"page_ms":120.5,"sink_ms":110.25,"sink_request_ms":115.5,"mbps":{mbps},"head":"{h}","content_type":null,"observed":{{"webdriver":false}},"protocol":"http/1.1","arm":{{"kind":"body","body":"{body}"}}{t}}}"#,
        h = "ab".repeat(32),
        t = timeline
    )
}

fn run_line(run: &str, reps: u64) -> String {
    format!(
        r#"{{"kind":"run","run_id":"{run}","browser":"Chromium","browser_version":"156","os":"Linux","extension_version":"0.1.0","source":"job","started_at":"2026-12-01T00:00:00Z","host_version":"0.1.0","recorded_at":"2026-12-01T00:00:00Z","sink_ceiling_mbps":20000.0,"plan":{{"size_bytes":33554432,"reps":{reps},"warmup":0,"bodies":["Uint8Array","Blob"]}}}}"#
    )
}

fn write_store(dir: &std::path::Path, per_arm: u64) -> u64 {
    let path = dir.join("results.jsonl");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(out, "{}", run_line("small", 4)).unwrap();
    for r in 0..4 {
        writeln!(out, "{}", sample_line("small", "Uint8Array", r, 2000.0)).unwrap();
        writeln!(out, "{}", sample_line("small", "Blob", r, 2200.0)).unwrap();
    }
    writeln!(out, "{}", run_line("big", per_arm)).unwrap();
    for r in 0..per_arm {
        let jitter = ((r * 7919) % 1001) as f64 / 10.0;
        writeln!(
            out,
            "{}",
            sample_line("big", "Uint8Array", r, 2000.0 + jitter)
        )
        .unwrap();
        writeln!(out, "{}", sample_line("big", "Blob", r, 2200.0 + jitter)).unwrap();
    }
    out.flush().unwrap();
    std::fs::metadata(&path).unwrap().len()
}

/// Runs `unobserved report ARGS`; (seconds, peak RSS in MiB).
fn timed(state: &std::path::Path, args: &[&str]) -> (f64, f64) {
    let started = Instant::now();
    let mut child = Command::new(common::BIN)
        .arg("report")
        .args(args)
        .env("UNOBSERVED_STATE_DIR", state)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: waits for the child spawned above and writes into the locals.
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid);
    assert_eq!(status, 0, "report {args:?} failed");
    let _ = child.try_wait();
    (
        started.elapsed().as_secs_f64(),
        usage.ru_maxrss as f64 / 1024.0,
    )
}

fn main() {
    let per_arm = env_u64("BENCH_PER_ARM", 100_000);
    let rounds = env_u64("BENCH_ROUNDS", 3);
    let dir = tempfile::tempdir().unwrap();
    let bytes = write_store(dir.path(), per_arm);
    println!(
        "store: {per_arm} samples per arm x 2 arms, {:.0} MiB",
        bytes as f64 / (1 << 20) as f64
    );
    for (what, args) in [
        (
            "report --run big --format json",
            &["--run", "big", "--format", "json"][..],
        ),
        ("report --run big (table)", &["--run", "big"]),
        ("report --run small", &["--run", "small"]),
        ("report --list", &["--list"]),
    ] {
        let runs: Vec<(f64, f64)> = (0..rounds).map(|_| timed(dir.path(), args)).collect();
        let worst_rss = runs.iter().map(|r| r.1).fold(0.0, f64::max);
        let mut times: Vec<f64> = runs.iter().map(|r| r.0).collect();
        times.sort_by(f64::total_cmp);
        println!(
            "{what:<34} median {:>6.2} s (min {:.2}, max {:.2}), peak RSS {worst_rss:>6.1} MiB",
            times[times.len() / 2],
            times[0],
            times[times.len() - 1]
        );
    }
}
