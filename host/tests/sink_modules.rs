//! A workload module's uploads over real loopback HTTP: whole bodies and parts at
//! offsets (`/m/…`) and the tus 1.0 protocol (`/tus/…`), reassembled by offset in the
//! ledger and checked against the bytes the host knows the module was given.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;
use unobserved::sink::expected::{check, ModuleBytes, ModuleRun, PartsCheck};
use unobserved::sink::ledger::{Claim, Entry};
use unobserved::sink::{Sink, SinkConfig};

const SEED: [u8; 16] = *b"a seed of 16 b.!";
const RUN: &str = "run-1";

fn start(module_bytes: u64) -> (Sink, String) {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    sink.ledger().open_run(RUN, 1000).unwrap();
    let run = ModuleRun::with_seed(SEED, module_bytes);
    sink.ledger().expect_modules(RUN, run);
    let token = sink.upload_path().rsplit('/').next().unwrap().to_owned();
    (sink, token)
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One HTTP/1.1 request on its own connection. `cut` sends only that many body bytes
/// of a body that declares `body.len()`, then closes its side.
fn request(
    sink: &Sink,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: &[u8],
    cut: Option<usize>,
) -> Answer {
    let mut s = TcpStream::connect(sink.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        sink.addr(),
        body.len()
    );
    for (n, v) in headers {
        head += &format!("{n}: {v}\r\n");
    }
    s.write_all(format!("{head}\r\n").as_bytes()).unwrap();
    let sent = cut.unwrap_or(body.len());
    s.write_all(&body[..sent]).unwrap();
    if cut.is_some() {
        s.shutdown(std::net::Shutdown::Write).unwrap();
    }
    let mut reply = Vec::new();
    let _ = s.read_to_end(&mut reply);
    let text = String::from_utf8_lossy(&reply);
    let mut lines = text.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Answer { status, headers }
}

fn given(rep: u64, len: usize) -> Vec<u8> {
    let mut b = vec![0; len];
    ModuleBytes { seed: SEED, rep }.fill(0, &mut b);
    b
}

/// What the ledger holds for `upload`, checked against rep `rep`'s `size` bytes.
fn judged(sink: &Sink, upload: &str, rep: u64, size: u64) -> PartsCheck {
    match sink.ledger().take(RUN, &upload.parse().unwrap()) {
        Claim::Found(Entry::Parts(t)) => {
            let m = ModuleBytes { seed: SEED, rep };
            check(&t, |o, l| m.sha256(o, l), size).0
        }
        other => panic!("{other:?}"),
    }
}

const TUS: &str = "1.0.0";

fn tus_headers(extra: &[(&'static str, String)]) -> Vec<(&'static str, String)> {
    let mut h = vec![("Tus-Resumable", TUS.to_owned())];
    h.extend_from_slice(extra);
    h
}

fn patch(sink: &Sink, path: &str, offset: usize, body: &[u8], cut: Option<usize>) -> Answer {
    let h = tus_headers(&[
        ("Upload-Offset", offset.to_string()),
        ("Content-Type", "application/offset+octet-stream".to_owned()),
    ]);
    request(sink, "PATCH", path, &h, body, cut)
}

#[test]
fn chunked_puts_in_any_order_are_reassembled_and_checked() {
    let (sink, token) = start(3000);
    let bytes = given(2, 3000);
    for (i, chunk) in bytes.chunks(1024).enumerate().rev() {
        let path = format!("/m/{token}/{RUN}/up1/{}", i * 1024);
        assert_eq!(request(&sink, "PUT", &path, &[], chunk, None).status, 200);
    }
    assert_eq!(judged(&sink, "up1", 2, 3000), PartsCheck::Intact);

    let path = format!("/m/{token}/{RUN}/up2");
    assert_eq!(request(&sink, "PUT", &path, &[], &bytes, None).status, 200);
    assert!(
        matches!(judged(&sink, "up2", 3, 3000), PartsCheck::Differs { .. }),
        "another rep's bytes"
    );
    let path = format!("/m/{token}/{RUN}/up3/0");
    request(&sink, "PUT", &path, &[], &bytes[..1000], None);
    assert_eq!(
        judged(&sink, "up3", 2, 3000),
        PartsCheck::Short { covered: 1000 }
    );
}

#[test]
fn a_module_sending_more_than_it_was_given_is_capped_at_the_sink() {
    let (sink, token) = start(3000);
    let path = format!("/m/{token}/{RUN}/big");
    assert_eq!(
        request(&sink, "PUT", &path, &[], &given(0, 3001), None).status,
        413
    );
    let path = format!("/m/{token}/{RUN}/big/3000");
    assert_eq!(request(&sink, "PUT", &path, &[], b"x", None).status, 413);
    assert_eq!(
        judged(&sink, "big", 0, 3000),
        PartsCheck::Refused { requests: 1 },
        "the first request is counted in its record; the one at the cap is refused before it begins"
    );
}

#[test]
fn module_routes_take_only_runs_with_modules_and_ids_once() {
    let (sink, token) = start(100);
    let other = format!("/m/{token}/other-run/u1");
    assert_eq!(request(&sink, "PUT", &other, &[], b"abc", None).status, 409);
    let wrong = format!("/m/00000000000000000000000000000000/{RUN}/u1");
    assert_eq!(request(&sink, "PUT", &wrong, &[], b"abc", None).status, 403);
    let bad = format!("/m/{token}/{RUN}/no.dots");
    assert_eq!(request(&sink, "PUT", &bad, &[], b"abc", None).status, 400);
    let path = format!("/m/{token}/{RUN}/u1");
    assert_eq!(request(&sink, "PUT", &path, &[], b"abc", None).status, 200);
    let tus = format!("/tus/{token}/{RUN}/u1");
    let h = tus_headers(&[("Upload-Length", "3".into())]);
    assert_eq!(
        request(&sink, "POST", &tus, &h, b"", None).status,
        409,
        "the id names a PUT upload"
    );
}

#[test]
fn tus_creation_patch_head_and_a_resumed_upload() {
    let size = 5000;
    let (sink, token) = start(size as u64);
    let bytes = given(1, size);
    let path = format!("/tus/{token}/{RUN}/t1");
    let options = request(&sink, "OPTIONS", &path, &[], b"", None);
    assert_eq!(options.status, 204);
    assert_eq!(options.header("Tus-Version"), Some(TUS));
    assert_eq!(options.header("Tus-Extension"), Some("creation"));

    let created = request(
        &sink,
        "POST",
        &path,
        &tus_headers(&[("Upload-Length", size.to_string())]),
        b"",
        None,
    );
    assert_eq!(created.status, 201);
    assert_eq!(created.header("Location"), Some(path.as_str()));
    assert_eq!(created.header("Tus-Resumable"), Some(TUS));

    let first = patch(&sink, &path, 0, &bytes[..2000], None);
    assert_eq!(first.status, 204);
    assert_eq!(first.header("Upload-Offset"), Some("2000"));
    // The connection drops 700 bytes into the next PATCH: those bytes are kept.
    patch(&sink, &path, 2000, &bytes[2000..4000], Some(700));
    std::thread::sleep(Duration::from_millis(200));
    let head = request(&sink, "HEAD", &path, &tus_headers(&[]), b"", None);
    assert_eq!(head.status, 200);
    assert_eq!(head.header("Upload-Offset"), Some("2700"));
    assert_eq!(head.header("Upload-Length"), Some("5000"));
    let stale = patch(&sink, &path, 2000, &bytes[2000..], None);
    assert_eq!(stale.status, 409, "not at the server's offset");
    assert_eq!(stale.header("Upload-Offset"), Some("2700"));
    let resumed = patch(&sink, &path, 2700, &bytes[2700..], None);
    assert_eq!(resumed.status, 204);
    assert_eq!(resumed.header("Upload-Offset"), Some("5000"));
    match sink.ledger().take(RUN, &"t1".parse().unwrap()) {
        Claim::Found(Entry::Parts(t)) => {
            assert_eq!(t.heads, 1);
            assert_eq!(t.parts.len(), 3, "2000, the 700 that arrived, the rest");
            let m = ModuleBytes { seed: SEED, rep: 1 };
            assert_eq!(
                check(&t, |o, l| m.sha256(o, l), size as u64).0,
                PartsCheck::Intact
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn tus_refusals() {
    let (sink, token) = start(1000);
    let path = format!("/tus/{token}/{RUN}/t2");
    let post = |h: &[(&'static str, String)]| request(&sink, "POST", &path, h, b"", None).status;
    assert_eq!(post(&tus_headers(&[])), 400, "no Upload-Length");
    assert_eq!(
        post(&tus_headers(&[("Upload-Defer-Length", "1".into())])),
        400
    );
    assert_eq!(
        post(&[
            ("Tus-Resumable", "0.2.2".into()),
            ("Upload-Length", "10".into())
        ]),
        412
    );
    assert_eq!(
        post(&tus_headers(&[("Upload-Length", "1001".into())])),
        413,
        "longer than the module was given"
    );
    let head = request(&sink, "HEAD", &path, &tus_headers(&[]), b"", None);
    assert_eq!(head.status, 404, "not created");
    assert_eq!(patch(&sink, &path, 0, b"abc", None).status, 404);
    assert_eq!(post(&tus_headers(&[("Upload-Length", "10".into())])), 201);
    let h = tus_headers(&[
        ("Upload-Offset", "0".into()),
        ("Content-Type", "application/octet-stream".into()),
    ]);
    assert_eq!(request(&sink, "PATCH", &path, &h, b"abc", None).status, 415);
    let b = given(0, 11);
    assert_eq!(
        patch(&sink, &path, 0, &b, None).status,
        413,
        "past the declared length"
    );
    assert_eq!(patch(&sink, &path, 0, &b[..10], None).status, 204);
    assert!(matches!(
        judged(&sink, "t2", 0, 10),
        PartsCheck::Refused { requests: 1 }
    ));
}
