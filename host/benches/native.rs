//! Native messaging throughput (see BENCHMARKS.md):
//!   - through the real binary: small request/reply round trips, and 1 MiB frames
//!     browser -> host (what the host can take in);
//!   - the framing layer over an OS pipe, 1 MiB frames each way (what it can put out;
//!     no host reply is that large in practice).
//!
//! `cargo bench --bench native`

use std::io::{BufReader, BufWriter};
use std::process::{Command, Stdio};
use std::time::Instant;
use unobserved::protocol::{read_frame, write_frame};

const BIN: &str = env!("CARGO_BIN_EXE_unobserved");

fn main() {
    let state = tempfile::tempdir().unwrap();
    let mut host = Command::new(BIN)
        .arg("chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm/")
        .env("UNOBSERVED_STATE_DIR", state.path())
        .env("UNOBSERVED_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = BufWriter::new(host.stdin.take().unwrap());
    let mut stdout = BufReader::new(host.stdout.take().unwrap());

    // Small messages, one at a time, as the extension sends them.
    let small = br#"{"type":"hello"}"#;
    let n = 20_000;
    let t = Instant::now();
    for _ in 0..n {
        write_frame(&mut stdin, small).unwrap();
        read_frame(&mut stdout).unwrap().unwrap();
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "small round trips through the host: {:.0} per second ({:.1} µs each)",
        n as f64 / s,
        s / n as f64 * 1e6
    );

    // 1 MiB frames into the host (a hello padded with an ignored field).
    let pad = "x".repeat((1 << 20) - 40);
    let big = format!(r#"{{"type":"hello","padding":"{pad}"}}"#);
    let n = 300;
    let t = Instant::now();
    for _ in 0..n {
        write_frame(&mut stdin, big.as_bytes()).unwrap();
        read_frame(&mut stdout).unwrap().unwrap();
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "1 MiB frames browser -> host, parsed and answered: {:.0} frames/s, {:.0} MB/s",
        n as f64 / s,
        n as f64 * big.len() as f64 / s / 1e6
    );
    drop(stdin);
    let _ = host.wait();

    // The framing layer alone over a pipe, 1 MiB frames, both directions share it.
    let (reader, writer) = std::io::pipe().unwrap();
    let frame = vec![b'x'; 1 << 20];
    let n = 2000;
    let t = Instant::now();
    let producer = std::thread::spawn(move || {
        let mut w = BufWriter::new(writer);
        for _ in 0..n {
            write_frame(&mut w, &frame).unwrap();
        }
    });
    let mut r = BufReader::new(reader);
    for _ in 0..n {
        read_frame(&mut r).unwrap().unwrap();
    }
    producer.join().unwrap();
    let s = t.elapsed().as_secs_f64();
    println!(
        "framing layer, 1 MiB frames over a pipe: {:.0} frames/s, {:.0} MB/s",
        n as f64 / s,
        n as f64 * 1048576.0 / s / 1e6
    );
}
