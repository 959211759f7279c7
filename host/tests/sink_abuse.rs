//! What a hostile page, peer or token holder could do to the sink, tried for real over
//! loopback (SECURITY.md, "Hardening, round two").

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

use std::time::Duration;
use unobserved::sink::{Sink, SinkConfig};

mod common;

fn path_of(sink: &Sink) -> String {
    sink.upload_path()
}

/// Sends raw request bytes and returns the status line of the reply.
fn status(sink: &Sink, request: &str) -> String {
    let mut s = TcpStream::connect(sink.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).unwrap();
    line.trim().to_owned()
}

#[test]
fn a_host_header_the_sink_does_not_own_is_refused() {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let path = path_of(&sink);
    let put = |host: &str| {
        status(
            &sink,
            &format!("PUT {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc"),
        )
    };
    assert!(put("evil.example").starts_with("HTTP/1.1 421"));
    assert!(put(&format!("evil.example:{}", sink.addr().port())).starts_with("HTTP/1.1 421"));
    assert!(put(&sink.addr().to_string()).starts_with("HTTP/1.1 200"));
    assert!(put(&format!("localhost:{}", sink.addr().port())).starts_with("HTTP/1.1 200"));
}

#[test]
fn simple_requests_from_foreign_pages_are_refused_before_the_token_is_looked_at() {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let (path, host) = (path_of(&sink), sink.addr().to_string());
    let put = |extra: &str| {
        status(
            &sink,
            &format!("PUT {path} HTTP/1.1\r\nHost: {host}\r\n{extra}Content-Length: 3\r\nConnection: close\r\n\r\nabc"),
        )
    };
    // Even with the right token, a page on another origin gets nothing.
    assert!(put("Origin: https://evil.example\r\n").starts_with("HTTP/1.1 403"));
    assert!(put("Origin: null\r\n").starts_with("HTTP/1.1 403"));
    assert!(put("Sec-Fetch-Site: cross-site\r\n").starts_with("HTTP/1.1 403"));
    // The sink's own page and the extension are served.
    assert!(put(&format!("Origin: http://{host}\r\n")).starts_with("HTTP/1.1 200"));
    assert!(
        put("Origin: chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm\r\n")
            .starts_with("HTTP/1.1 200")
    );
}

#[test]
fn a_client_that_writes_its_whole_body_before_reading_still_gets_its_413() {
    let sink = Sink::start(SinkConfig {
        max_body: 1 << 20,
        ..SinkConfig::default()
    })
    .unwrap();
    let mut s = TcpStream::connect(sink.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "PUT {} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n\r\n",
        path_of(&sink),
        sink.addr(),
        2 << 20
    )
    .unwrap();
    // Like Python's urllib: the whole body first. Without a lingering close the sink
    // would reset the connection and this write (or the read) would fail.
    s.write_all(&vec![7u8; 2 << 20])
        .expect("the body could be written");
    let mut reply = String::new();
    BufReader::new(s).read_line(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply:?}");
}

#[test]
fn a_trickled_body_is_cut_off_after_the_grace_period() {
    let sink = Sink::start(SinkConfig {
        min_rate_grace: Duration::from_secs(1),
        ..SinkConfig::default()
    })
    .unwrap();
    let mut s = TcpStream::connect(sink.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "PUT {} HTTP/1.1\r\nHost: {}\r\nContent-Length: 1000000\r\n\r\n",
        path_of(&sink),
        sink.addr()
    )
    .unwrap();
    // One byte every 100 ms: never idle, far below 16 KiB/s.
    let mut cut_off = false;
    for _ in 0..100 {
        if s.write_all(b"x").is_err() {
            cut_off = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        s.set_nonblocking(true).unwrap();
        let mut b = [0u8; 64];
        let answered = matches!(s.read(&mut b), Ok(n) if n > 0);
        s.set_nonblocking(false).unwrap();
        if answered {
            assert!(
                b.starts_with(b"HTTP/1.1 4"),
                "{:?}",
                String::from_utf8_lossy(&b)
            );
            cut_off = true;
            break;
        }
    }
    assert!(cut_off, "10 s of trickling was still accepted");
}

#[test]
fn downloads_have_their_own_cap() {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let token = sink.upload_path().rsplit('/').next().unwrap().to_owned();
    let get = |bytes: u64| {
        status(
            &sink,
            &format!(
                "GET /download/{token}?bytes={bytes}&seed=000102030405060708090a0b0c0d0e0f HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                sink.addr()
            ),
        )
    };
    assert!(get(16 << 30).starts_with("HTTP/1.1 400"));
    assert!(get(1024).starts_with("HTTP/1.1 200"));
}

#[test]
fn a_hundred_thousand_refused_requests_grow_the_log_by_less_than_64_kib() {
    let sink = common::SinkProcess::start(&["--listen", "127.0.0.1:0"]);
    let log = sink.state.path().join("unobserved.log");
    let before = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
    let addr = sink.authority();
    // Pipelined on a few kept-alive connections, each read back so none is dropped.
    let per_conn = 25_000;
    std::thread::scope(|s| {
        for _ in 0..4 {
            let addr = addr.clone();
            s.spawn(move || {
                let mut c = TcpStream::connect(&addr).unwrap();
                let one = format!("PUT /upload/0000000000000000000000000000000 HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\n\r\n");
                let reader = c.try_clone().unwrap();
                let counter = std::thread::spawn(move || {
                    let mut r = BufReader::new(reader);
                    let (mut seen, mut line) = (0, String::new());
                    while seen < per_conn {
                        line.clear();
                        if r.read_line(&mut line).unwrap() == 0 {
                            break;
                        }
                        // A JSON body has no newline: the next status line joins it.
                        seen += line.matches("HTTP/1.1 403").count();
                    }
                    seen
                });
                for chunk in 0..per_conn / 500 {
                    let _ = chunk;
                    c.write_all(one.repeat(500).as_bytes()).unwrap();
                }
                assert_eq!(counter.join().unwrap(), per_conn, "every request was refused");
            });
        }
    });
    let grown = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0) - before;
    drop(sink);
    assert!(grown < 64 << 10, "the log grew by {grown} bytes");
}

#[test]
fn a_peer_holding_every_slot_with_idle_connections_cannot_lock_out_a_real_upload() {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let addr = sink.addr();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let holding = std::sync::Barrier::new(2);
    std::thread::scope(|s| {
        // 256 idle connections (the cap), each reopened as soon as the sink closes it.
        s.spawn(|| {
            let mut held: Vec<TcpStream> = (0..256)
                .filter_map(|_| TcpStream::connect(addr).ok())
                .collect();
            holding.wait();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for c in held.iter_mut() {
                    c.set_nonblocking(true).unwrap();
                    let closed = matches!(c.read(&mut [0u8; 1]), Ok(0) | Ok(_));
                    if closed {
                        if let Ok(n) = TcpStream::connect(addr) {
                            *c = n;
                        }
                    }
                }
                std::thread::yield_now();
            }
        });
        holding.wait();
        let mut served = 0;
        for _ in 0..12 {
            let r = ureq::put(&sink.upload_url()).send(&b"abc"[..]);
            if matches!(&r, Ok(resp) if resp.status() == 200) {
                served += 1;
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(served, 12, "a real upload was locked out");
    });
}

#[test]
fn idle_connections_that_sent_one_refused_request_are_still_evicted_for_real_uploads() {
    let sink = Sink::start(SinkConfig {
        max_connections: 16,
        ..SinkConfig::default()
    })
    .unwrap();
    let addr = sink.addr();
    // Every slot: one wrong-token request each, answered, then silence.
    let held: Vec<TcpStream> = (0..16)
        .map(|_| {
            let mut c = TcpStream::connect(addr).unwrap();
            write!(
                c,
                "PUT /upload/nope HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\n\r\n"
            )
            .unwrap();
            let mut line = String::new();
            BufReader::new(c.try_clone().unwrap())
                .read_line(&mut line)
                .unwrap();
            assert!(line.starts_with("HTTP/1.1 403"), "{line}");
            c
        })
        .collect();
    for _ in 0..4 {
        let r = ureq::put(&sink.upload_url()).send(&b"abc"[..]).unwrap();
        assert_eq!(r.status(), 200);
    }
    drop(held);
}
