//! The sink under hostile or careless clients: TLS, slow clients, CORS, and the
//! standalone `unobserved sink` command.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;
use unobserved::sink::{Sink, SinkConfig};

const BIN: &str = env!("CARGO_BIN_EXE_unobserved");

struct Killed(std::process::Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `unobserved sink` and returns it with the URL from its first stdout line.
fn sink_command(args: &[&str]) -> (Killed, String) {
    let mut child = Command::new(BIN)
        .arg("sink")
        .args(args)
        .env(
            "UNOBSERVED_STATE_DIR",
            std::env::temp_dir().join("unobserved-sink-test"),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (Killed(child), line.trim().to_owned())
}

fn curl(args: &[&str]) -> String {
    let out = Command::new("curl")
        .args(["-s", "--max-time", "20"])
        .args(args)
        .output()
        .expect("curl");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn sink_command_prints_the_upload_url_first_and_stays_on_loopback_by_default() {
    let (_sink, url) = sink_command(&["--listen", "127.0.0.1:0"]);
    assert!(
        url.starts_with("http://127.0.0.1:") && url.contains("/upload/"),
        "{url}"
    );
    let token = url.rsplit('/').next().unwrap();
    assert_eq!(token.len(), 32, "a fresh 128-bit token");
    let reply = curl(&["-X", "PUT", "--data-binary", "abc", &url]);
    assert!(
        reply.contains("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        "{reply}"
    );
}

#[test]
fn sink_command_refuses_a_weak_token() {
    let out = Command::new(BIN)
        .args(["sink", "--token", "abc"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 16"));
}

#[test]
fn tls_sink_serves_https() {
    let dir = tempfile::tempdir().unwrap();
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let (cert_path, key_path) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert_path, cert.cert.pem()).unwrap();
    std::fs::write(&key_path, cert.signing_key.serialize_pem()).unwrap();
    let (_sink, url) = sink_command(&[
        "--listen",
        "127.0.0.1:0",
        "--tls-cert",
        cert_path.to_str().unwrap(),
        "--tls-key",
        key_path.to_str().unwrap(),
    ]);
    assert!(url.starts_with("https://"), "{url}");
    let url = url.replace("127.0.0.1", "localhost");
    let port = url.split(':').nth(2).unwrap().split('/').next().unwrap();
    let reply = curl(&[
        "--cacert",
        cert_path.to_str().unwrap(),
        "--resolve",
        &format!("localhost:{port}:127.0.0.1"),
        "-X",
        "PUT",
        "--data-binary",
        "abc",
        &url,
    ]);
    assert!(
        reply.contains("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        "https upload: {reply:?}"
    );
    // Plain HTTP to the TLS port gets nothing useful.
    let plain = curl(&[
        "-X",
        "PUT",
        "--data-binary",
        "abc",
        &url.replace("https://", "http://"),
    ]);
    assert!(!plain.contains("sha256"));
}

#[test]
fn slow_clients_are_cut_off_and_others_are_still_served() {
    let sink = Sink::start(SinkConfig {
        idle_timeout: Duration::from_secs(3),
        ..SinkConfig::default()
    })
    .unwrap();
    let path = sink.upload_url().replace(&sink.base_url(), "");
    // Twenty slowloris connections: half a request line each, then silence.
    let slow: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = TcpStream::connect(sink.addr()).unwrap();
            s.write_all(format!("PUT {path} HTTP/1.1\r\nHost: x\r\nContent-Le").as_bytes())
                .unwrap();
            s
        })
        .collect();
    // A normal client is served meanwhile...
    let mut r = ureq::put(&sink.upload_url()).send(&b"abc"[..]).unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.body_mut().read_to_string().unwrap().contains("ba7816bf"));
    // ...while every slow connection is still open: it did not wait for them to time out.
    let still_open = |s: &TcpStream| {
        s.set_nonblocking(true).unwrap();
        let open =
            matches!(s.peek(&mut [0u8; 1]), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
        s.set_nonblocking(false).unwrap();
        open
    };
    let open_now = slow.iter().filter(|s| still_open(s)).count();
    assert!(
        open_now > 0,
        "the normal upload was answered only after the slow clients were dropped"
    );
    // And the server hangs up on every slow client by itself (the idle timeout).
    for mut s in slow {
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut buf = [0u8; 256];
        let n = s.read(&mut buf).unwrap_or(0);
        let text = String::from_utf8_lossy(&buf[..n]);
        assert!(
            n == 0 || text.starts_with("HTTP/1.1 4"),
            "slow client got {text:?}"
        );
    }
}

#[test]
fn cors_echoes_only_the_extension_and_the_sinks_own_page() {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let url = sink.upload_url();
    // Header names are case-insensitive in HTTP; compare in lower case.
    let preflight = |origin: &str| {
        curl(&[
            "-i",
            "-X",
            "OPTIONS",
            "-H",
            &format!("Origin: {origin}"),
            &url,
        ])
        .to_lowercase()
    };
    let ok = preflight("chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm");
    assert!(ok.starts_with("http/1.1 204"), "{ok}");
    assert!(ok.contains(
        "access-control-allow-origin: chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm"
    ));
    let own = preflight(&sink.base_url());
    assert!(own.contains(&format!("access-control-allow-origin: {}", sink.base_url())));
    let evil = preflight("https://evil.example");
    assert!(
        evil.starts_with("http/1.1 403") && !evil.contains("access-control-allow-origin"),
        "{evil}"
    );
    // A simple request from a foreign origin is answered without CORS headers, so the
    // foreign page cannot read the reply.
    let put = curl(&[
        "-i",
        "-X",
        "PUT",
        "-H",
        "Origin: https://evil.example",
        "--data-binary",
        "x",
        &url,
    ])
    .to_lowercase();
    assert!(!put.contains("access-control-allow-origin"));
    assert!(!put.contains('*'), "never a wildcard");
}

#[test]
fn connections_beyond_the_cap_get_503_and_the_sink_recovers() {
    let sink = Sink::start(SinkConfig {
        max_connections: 5,
        ..SinkConfig::default()
    })
    .unwrap();
    // Five idle connections hold every slot.
    let held: Vec<TcpStream> = (0..5)
        .map(|_| TcpStream::connect(sink.addr()).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut sixth = TcpStream::connect(sink.addr()).unwrap();
    sixth
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reply = String::new();
    let _ = sixth.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 503"), "{reply:?}");
    assert!(reply.contains("too many connections"));
    // Slots free up when clients leave.
    drop(held);
    std::thread::sleep(Duration::from_millis(200));
    let mut r = ureq::put(&sink.upload_url()).send(&b"abc"[..]).unwrap();
    assert!(r.body_mut().read_to_string().unwrap().contains("ba7816bf"));
}
