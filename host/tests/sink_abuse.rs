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

/// A connection to `addr` from 127.0.0.2, a peer other than the test's own uploads.
fn from_peer(addr: std::net::SocketAddr) -> Option<TcpStream> {
    common::serve::try_connect_from(std::net::Ipv4Addr::new(127, 0, 0, 2), addr)
}

#[test]
fn a_peer_holding_every_slot_with_idle_connections_cannot_lock_out_a_real_upload() {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let addr = sink.addr();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let holding = std::sync::Barrier::new(2);
    std::thread::scope(|s| {
        // 256 idle connections (the cap), each reopened as soon as the sink closes it, from
        // another loopback address than the real upload's: slots are fair per peer, so a
        // peer can crowd out only itself (round_four covers the per-peer cap).
        s.spawn(|| {
            let mut held: Vec<TcpStream> = (0..256).filter_map(|_| from_peer(addr)).collect();
            holding.wait();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for c in held.iter_mut() {
                    c.set_nonblocking(true).unwrap();
                    let closed = matches!(c.read(&mut [0u8; 1]), Ok(0) | Ok(_));
                    if closed {
                        if let Some(n) = from_peer(addr) {
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

/// A reply read to the end of its connection: status, headers (names in lower case)
/// and the JSON body, if it had one.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: serde_json::Value,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The sink took the upload: its byte count and digest came back.
    fn received(&self) -> bool {
        self.header("x-unobserved-bytes").is_some() || self.body.get("sha256").is_some()
    }
}

/// Sends `request` (which should say `Connection: close`) and reads the whole reply.
fn exchange(addr: impl std::net::ToSocketAddrs, request: &str) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole reply head");
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v == "chunked");
    let body = if chunked {
        unchunk(body)
    } else {
        body.to_owned()
    };
    Answer {
        status,
        headers,
        body: serde_json::from_str(&body).unwrap_or(serde_json::Value::Null),
    }
}

/// The payload of a chunked body.
fn unchunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&after[..n]);
        rest = &after[n + 2..];
    }
    out
}

/// A 3-byte upload to `target` with these extra header lines (each ending in CRLF).
fn upload_request(target: &str, headers: &str) -> String {
    format!("PUT {target} HTTP/1.1\r\n{headers}Content-Length: 3\r\nConnection: close\r\n\r\nabc")
}

#[test]
fn an_absolute_target_naming_another_host_is_misdirected_even_with_a_good_host_header() {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let (path, host) = (path_of(&sink), format!("Host: {}\r\n", sink.addr()));
    let evil = exchange(
        sink.addr(),
        &upload_request(&format!("http://evil.example{path}"), &host),
    );
    assert_eq!(evil.status, 421);
    assert!(!evil.received(), "the upload was taken");
    // The sink's own name in absolute form is what RFC 9112 says a server must accept.
    let own = exchange(
        sink.addr(),
        &upload_request(&format!("http://{}{path}", sink.addr()), &host),
    );
    assert_eq!((own.status, own.received()), (200, true));
    // ...but not with a Host that names something else.
    let port = sink.addr().port();
    let contradicted = exchange(
        sink.addr(),
        &upload_request(
            &format!("http://{}{path}", sink.addr()),
            &format!("Host: localhost:{port}\r\n"),
        ),
    );
    assert_eq!((contradicted.status, contradicted.received()), (400, false));
}

#[test]
fn a_repeated_host_or_origin_header_is_refused_even_when_each_copy_is_allowed() {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let path = path_of(&sink);
    let host = format!("Host: {}\r\n", sink.addr());
    let origin = format!("Origin: {}\r\n", sink.base_url());
    for (what, headers) in [
        ("Host", format!("{host}{host}")),
        ("Host", format!("{host}Host: evil.example\r\n")),
        ("Origin", format!("{host}{origin}{origin}")),
        (
            "Origin",
            format!("{host}{origin}Origin: https://evil.example\r\n"),
        ),
    ] {
        let answer = exchange(sink.addr(), &upload_request(&path, &headers));
        assert_eq!(answer.status, 400, "two {what} headers");
        assert!(
            !answer.received(),
            "two {what} headers: the upload was taken"
        );
    }
    // One of each is fine.
    let once = exchange(
        sink.addr(),
        &upload_request(&path, &format!("{host}{origin}")),
    );
    assert_eq!((once.status, once.received()), (200, true));
}

#[test]
fn the_sinks_page_under_any_name_it_answers_to_is_an_allowed_origin() {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let path = path_of(&sink);
    let name = format!("localhost:{}", sink.addr().port());
    let origin = format!("http://{name}");
    let answer = exchange(
        sink.addr(),
        &upload_request(&path, &format!("Host: {name}\r\nOrigin: {origin}\r\n")),
    );
    assert_eq!((answer.status, answer.received()), (200, true));
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some(origin.as_str())
    );
    // Another port on the same name is another origin.
    let other = format!("http://localhost:{}", sink.addr().port() + 1);
    let refused = exchange(
        sink.addr(),
        &upload_request(&path, &format!("Host: {name}\r\nOrigin: {other}\r\n")),
    );
    assert_eq!((refused.status, refused.received()), (403, false));
}

/// What a Firefox extension page sends: a per-install random UUID as its origin.
const FIREFOX_PAGE: &str = "Origin: moz-extension://3f2c1d0e-9b8a-4c7d-8e6f-5a4b3c2d1e0f\r\n";

#[test]
fn a_firefox_extension_page_is_refused_by_the_hosts_own_sink() {
    // The host's sink serves the benchmark page itself: no extension page calls it.
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let host = format!("Host: {}\r\n", sink.addr());
    let answer = exchange(
        sink.addr(),
        &upload_request(&path_of(&sink), &format!("{host}{FIREFOX_PAGE}")),
    );
    assert_eq!((answer.status, answer.received()), (403, false));
}

#[test]
fn a_standalone_sink_takes_uploads_from_a_firefox_extension_page_and_nothing_else() {
    // A remote sink is called from the extension's own page, whose Firefox origin
    // cannot be listed: let in on the token routes only.
    let sink = common::SinkProcess::start(&["--listen", "127.0.0.1:0"]);
    let (addr, path) = (sink.authority(), sink.path());
    let host = format!("Host: {addr}\r\n");
    let upload = exchange(
        &*addr,
        &upload_request(&path, &format!("{host}{FIREFOX_PAGE}")),
    );
    assert_eq!((upload.status, upload.received()), (200, true));
    assert_eq!(upload.header("access-control-allow-origin"), None);
    let page = exchange(
        &*addr,
        &format!("GET /bench/index.html HTTP/1.1\r\n{host}{FIREFOX_PAGE}Connection: close\r\n\r\n"),
    );
    assert_eq!(
        page.status, 403,
        "a page of the sink, from an extension page"
    );
    let not_firefox = exchange(
        &*addr,
        &upload_request(
            &path,
            &format!("{host}Origin: moz-extension://evil.example\r\n"),
        ),
    );
    assert_eq!((not_firefox.status, not_firefox.received()), (403, false));
}

#[test]
fn an_oversized_request_head_gets_431_while_other_uploads_go_on() {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let path = path_of(&sink);
    let host = format!("Host: {}\r\n", sink.addr());
    // Header lines of 4 KiB each: `n` of them make a head of about n * 4 KiB.
    let filler = |n: usize| format!("X-Filler: {}\r\n", "a".repeat(4086)).repeat(n);
    // A big but plausible head (cookies, say) is still served.
    let big = exchange(
        sink.addr(),
        &upload_request(&path, &format!("{host}{}", filler(6))),
    );
    assert_eq!((big.status, big.received()), (200, true));
    // 64 KiB and more: the first half now, then a normal upload, then the rest.
    let mut huge = TcpStream::connect(sink.addr()).unwrap();
    huge.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(huge, "PUT {path} HTTP/1.1\r\n{host}{}", filler(4)).unwrap();
    let meanwhile = exchange(sink.addr(), &upload_request(&path, &host));
    assert_eq!((meanwhile.status, meanwhile.received()), (200, true));
    // The sink may hang up before it has read all of it: a failed write is fine.
    let _ = write!(huge, "{}Content-Length: 3\r\n\r\nabc", filler(13));
    let mut line = String::new();
    BufReader::new(huge).read_line(&mut line).unwrap();
    assert!(line.starts_with("HTTP/1.1 431 "), "{line:?}");
}
