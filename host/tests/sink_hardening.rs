//! The sink under hostile or careless clients: TLS, slow clients, CORS, and the
//! standalone `unobserved sink` command.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;
use unobserved::sink::{Sink, SinkConfig};

mod common;

use common::{SinkProcess, BIN};

/// Starts `unobserved sink` and returns it with the URL from its first stdout line.
fn sink_command(args: &[&str]) -> (SinkProcess, String) {
    let sink = SinkProcess::start(args);
    let url = sink.url.clone();
    (sink, url)
}

fn curl(args: &[&str]) -> String {
    curl_status(args).1
}

/// curl's own exit code (0 ok, 52 empty reply, 56 receive failure, ...) and its output.
fn curl_status(args: &[&str]) -> (i32, String) {
    let out = Command::new("curl")
        .args(["-s", "--max-time", "20"])
        .args(args)
        .output()
        .expect("curl is needed (scripts/ensure-deps.sh installs it)");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn sink_command_prints_the_upload_url_first_and_stays_on_loopback_by_default() {
    // No --listen: the default is what is under test (127.0.0.1:8099).
    let (_sink, url) = sink_command(&[]);
    assert!(
        url.starts_with("http://127.0.0.1:8099/upload/"),
        "{url} (is something else using port 8099?)"
    );
    // Nothing listens on this machine's other addresses.
    for ip in non_loopback_addresses() {
        assert!(
            TcpStream::connect_timeout(&(ip, 8099).into(), Duration::from_secs(2)).is_err(),
            "the default sink answers on {ip}"
        );
    }
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
        .env("UNOBSERVED_STATE_DIR", tempfile::tempdir().unwrap().path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a weak token is bad usage");
}

/// This machine's IPv4 addresses other than loopback, from `hostname -I`.
fn non_loopback_addresses() -> Vec<std::net::IpAddr> {
    let out = Command::new("hostname").arg("-I").output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter_map(|a| a.parse().ok())
        .filter(|ip: &std::net::IpAddr| ip.is_ipv4() && !ip.is_loopback())
        .collect()
}

#[test]
fn tls_sink_serves_https() {
    let sink = common::tls_sink(&[]);
    let (url, cert_path) = (sink.url.clone(), &sink.cert_path);
    assert!(url.starts_with("https://"), "{url}");
    let url = url.replace("127.0.0.1", "localhost");
    let port = url.split(':').nth(2).unwrap().split('/').next().unwrap();
    let reply = curl(&[
        "--cacert",
        cert_path,
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
    // Plain HTTP to the TLS port gets no HTTP reply at all: a TLS alert curl refuses as
    // HTTP/0.9 (1), or a dropped connection (52, empty reply; 56, receive failure); not
    // a refused connection (7) or a timeout (28), and never a digest.
    let (code, plain) = curl_status(&[
        "-X",
        "PUT",
        "--data-binary",
        "abc",
        &url.replace("https://", "http://"),
    ]);
    assert!(
        [1, 52, 56].contains(&code) && plain.is_empty(),
        "curl exit {code}: {plain:?}"
    );
}

#[test]
fn slow_clients_do_not_hold_up_others_and_are_hung_up_on_at_the_idle_timeout() {
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
            s.write_all(
                format!("PUT {path} HTTP/1.1\r\nHost: {}\r\nContent-Le", sink.addr()).as_bytes(),
            )
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
        // Ok(0) is the server closing; a read that times out is the server not hanging
        // up, which fails here rather than passing as "nothing read".
        let n = s
            .read(&mut buf)
            .expect("the sink hung up on a slow client within 60 s");
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
        max_connections: 8,
        ..SinkConfig::default()
    })
    .unwrap();
    // Eight uploads in progress, from four addresses (each its cap of two), hold every
    // slot: a connection is in use while its request is (a kept-alive one between
    // requests is idle, and makes room). Each has had its head answered with
    // 100-continue, so the sink has surely taken it (no sleeping and hoping).
    let path = sink.upload_url().replace(&sink.base_url(), "");
    let held: Vec<TcpStream> = (0..8u8)
        .map(|i| {
            let from = std::net::Ipv4Addr::new(127, 0, 0, 2 + i / 2);
            let mut c = common::serve::connect_from(from, sink.addr());
            write!(
                c,
                "PUT {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\nabc",
                sink.addr()
            )
            .unwrap();
            let mut line = String::new();
            std::io::BufRead::read_line(&mut std::io::BufReader::new(&c), &mut line).unwrap();
            assert!(line.starts_with("HTTP/1.1 100"), "{line}");
            c
        })
        .collect();
    // A ninth from yet another address: nothing idle to make room.
    let mut ninth = common::serve::connect_from(std::net::Ipv4Addr::new(127, 0, 0, 9), sink.addr());
    ninth
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reply = String::new();
    let _ = ninth.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 503"), "{reply:?}");
    // Slots free up when clients leave: the next upload gets through once the sink has
    // seen them go (bounded, not timed).
    drop(held);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let served = loop {
        match ureq::put(&sink.upload_url()).send(&b"abc"[..]) {
            Ok(mut r) => break r.body_mut().read_to_string().unwrap(),
            Err(e) if std::time::Instant::now() < deadline => {
                let _ = e;
                std::thread::yield_now();
            }
            Err(e) => panic!("no slot came free within 10 s: {e}"),
        }
    };
    assert!(served.contains("ba7816bf"));
}

#[test]
fn sink_command_flags_set_the_body_cap_and_the_idle_timeout() {
    let (_sink, url) = sink_command(&[
        "--listen",
        "127.0.0.1:0",
        "--max-body",
        "1KiB",
        "--idle-timeout",
        "1",
    ]);
    let status = |len: usize| {
        let body = "x".repeat(len);
        curl(&[
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "-X",
            "PUT",
            "--data-binary",
            &body,
            &url,
        ])
    };
    assert_eq!(status(1024), "200");
    assert_eq!(status(2048), "413");
    // A connection that says nothing is closed by the sink after about a second; the
    // read returns (0 bytes, or a 4xx) instead of waiting for our own 30 s bound.
    let addr = url.trim_start_matches("http://").split('/').next().unwrap();
    let mut silent = TcpStream::connect(addr).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut buf = [0u8; 64];
    let n = silent
        .read(&mut buf)
        .expect("the sink closed the silent connection");
    assert!(n == 0 || buf.starts_with(b"HTTP/1.1 4"), "{:?}", &buf[..n]);
}

#[test]
fn known_paths_answer_wrong_methods_with_405_and_the_root_redirects_to_the_page() {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let code = |args: &[&str]| {
        let mut all = vec!["-o", "/dev/null", "-w", "%{http_code} %{redirect_url}"];
        all.extend_from_slice(args);
        curl(&all)
    };
    let upload = sink.upload_url();
    assert_eq!(code(&[&upload]), "405 ", "GET on the upload route");
    assert_eq!(code(&["-X", "DELETE", &upload]), "405 ");
    let root = format!("{}/", sink.base_url());
    assert_eq!(
        code(&[&root]),
        format!("302 {}/bench/index.html", sink.base_url())
    );
}

#[test]
fn a_sink_on_every_address_prints_a_url_a_client_can_use() {
    let (_sink, url) = sink_command(&["--listen", "0.0.0.0:0"]);
    assert!(!url.contains("0.0.0.0"), "{url}");
    let (_named, url) = sink_command(&["--listen", "0.0.0.0:0", "--public-host", "sink.lan"]);
    assert!(url.starts_with("http://sink.lan:"), "{url}");
}
