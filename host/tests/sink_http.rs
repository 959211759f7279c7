//! The sink over real loopback HTTP: every bad request gets its status, and the sink
//! keeps serving others.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use unobserved::sink::{Sink, SinkConfig, SinkEvent};

fn start(max_body: u64) -> (Sink, Arc<Mutex<Vec<SinkEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    let sink = Sink::start(SinkConfig {
        max_body,
        on_event: Some(Arc::new(move |e| seen.lock().unwrap().push(e))),
        ..SinkConfig::default()
    })
    .unwrap();
    (sink, events)
}

fn status_of(result: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> u16 {
    match result {
        Ok(r) => r.status().as_u16(),
        Err(ureq::Error::StatusCode(c)) => c,
        Err(e) => panic!("{e}"),
    }
}

fn good_upload_works(sink: &Sink) {
    let mut r = ureq::put(&sink.upload_url()).send(&b"abc"[..]).unwrap();
    let v: serde_json::Value = serde_json::from_reader(r.body_mut().as_reader()).unwrap();
    assert_eq!(
        v["sha256"],
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(v["head"], "abc");
}

#[test]
fn token_path_and_size_errors() {
    let (sink, _) = start(1000);
    let base = sink.base_url();
    assert_eq!(
        status_of(ureq::put(&format!("{base}/upload/")).send(&b"x"[..])),
        403,
        "missing token"
    );
    assert_eq!(
        status_of(
            ureq::put(&format!("{base}/upload/00000000000000000000000000000000")).send(&b"x"[..])
        ),
        403,
        "wrong token"
    );
    assert_eq!(status_of(ureq::get(&format!("{base}/nope")).call()), 404);
    assert_eq!(
        status_of(ureq::get(&format!("{base}/lib/../manifest.json")).call()),
        404
    );
    assert_eq!(
        status_of(ureq::put(&sink.upload_url()).send(&vec![0u8; 5000][..])),
        413
    );
    good_upload_works(&sink);
}

#[test]
fn post_is_accepted_like_put() {
    let (sink, _) = start(1 << 20);
    assert_eq!(
        status_of(ureq::post(&sink.upload_url()).send(&b"hello"[..])),
        200
    );
}

#[test]
fn the_benchmark_page_is_served() {
    let (sink, _) = start(1 << 20);
    let mut r = ureq::get(&sink.page_url()).call().unwrap();
    assert!(r
        .headers()
        .get("content-type")
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert!(r.body_mut().read_to_string().unwrap().contains("bench.js"));
    assert_eq!(
        status_of(ureq::get(&format!("{}/lib/plan.js", sink.base_url())).call()),
        200
    );
}

#[test]
fn malformed_http_gets_400_and_the_sink_keeps_serving() {
    let (sink, _) = start(1 << 20);
    let mut s = TcpStream::connect(sink.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"THIS IS NOT HTTP\r\n\r\n").unwrap();
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply:?}");
    good_upload_works(&sink);
}

#[test]
fn an_aborted_upload_is_recorded_with_its_byte_count() {
    let (sink, events) = start(1 << 30);
    let mut s = TcpStream::connect(sink.addr()).unwrap();
    let path = sink.upload_url().replace(&sink.base_url(), "");
    write!(
        s,
        "PUT {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: 1000000\r\n\r\n",
        sink.addr()
    )
    .unwrap();
    s.write_all(&[7u8; 300_000]).unwrap();
    drop(s);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while events.lock().unwrap().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let events = events.lock().unwrap();
    match events.first() {
        Some(SinkEvent::Aborted { bytes, path }) => {
            assert_eq!(*bytes, 300_000);
            assert_eq!(path, "/upload/<token>", "the token never reaches the store");
        }
        other => panic!("no abort recorded: {other:?}"),
    }
    drop(events);
    good_upload_works(&sink);
}

#[test]
fn chunked_bodies_are_hashed_too() {
    let (sink, _) = start(1 << 20);
    let url = sink.upload_url();
    let path = url.replace(&sink.base_url(), "");
    let mut s = TcpStream::connect(sink.addr()).unwrap();
    write!(s, "PUT {path} HTTP/1.1\r\nHost: {}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n1\r\na\r\n2\r\nbc\r\n0\r\n\r\n", sink.addr()).unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(
        reply.contains("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        "{reply}"
    );
}

mod encrypted_chunks {
    use super::*;
    use aes_gcm::aead::{AeadInOut, KeyInit};
    use aes_gcm::Aes256Gcm;

    const KEY: [u8; 32] = [42u8; 32];

    fn sealed(index: u64, plain: &[u8]) -> Vec<u8> {
        let mut iv = [0u8; 12];
        iv[4..].copy_from_slice(&index.to_be_bytes());
        let mut buf = plain.to_vec();
        let nonce = aes_gcm::Nonce::<aes_gcm::aes::cipher::consts::U12>::try_from(&iv[..]).unwrap();
        Aes256Gcm::new(&KEY.into())
            .encrypt_in_place(&nonce, b"", &mut buf)
            .unwrap();
        [iv.to_vec(), buf].concat()
    }

    fn put_chunk(
        sink: &Sink,
        run: &str,
        upload: &str,
        index: u64,
        body: &[u8],
    ) -> (u16, serde_json::Value) {
        let token = sink.upload_url().rsplit('/').next().unwrap().to_owned();
        let url = format!("{}/chunk/{token}/{run}/{upload}/{index}", sink.base_url());
        match ureq::put(&url).send(body) {
            Ok(mut r) => (
                r.status().as_u16(),
                serde_json::from_reader(r.body_mut().as_reader()).unwrap(),
            ),
            Err(ureq::Error::StatusCode(c)) => (c, serde_json::Value::Null),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn good_chunks_verify_and_tampered_or_misordered_ones_are_flagged() {
        let (sink, _) = start(1 << 30);
        sink.ledger().open_run("run1", 10).unwrap();
        sink.chunks().set_key("run1", KEY);
        let plain = vec![9u8; 100_000];
        let (status, r) = put_chunk(&sink, "run1", "u", 0, &sealed(0, &plain));
        assert_eq!(status, 200);
        assert_eq!(r["tag_ok"], true);
        assert_eq!(r["order"], "ok");
        assert_eq!(r["plaintext_bytes"], 100_000);
        assert_eq!(
            r["plaintext_sha256"],
            hex::encode(sha2::Sha256::digest(&plain))
        );

        // One bit flipped in transit: the tag no longer verifies.
        let mut tampered = sealed(1, &plain);
        tampered[5000] ^= 0x10;
        let (_, r) = put_chunk(&sink, "run1", "u", 1, &tampered);
        assert_eq!(r["tag_ok"], false);

        // Skipping ahead, then going back.
        let (_, r) = put_chunk(&sink, "run1", "u", 5, &sealed(5, &plain));
        assert_eq!(
            (r["tag_ok"].as_bool(), r["order"].as_str()),
            (Some(true), Some("out-of-order"))
        );
        let (_, r) = put_chunk(&sink, "run1", "u", 3, &sealed(3, &plain));
        assert_eq!(r["order"], "repeated");
    }

    #[test]
    fn a_chunk_for_a_run_without_a_key_or_over_the_cap_is_refused() {
        let (sink, _) = start(1 << 30);
        sink.ledger().open_run("nokey", 10).unwrap();
        assert_eq!(put_chunk(&sink, "nokey", "u", 0, &sealed(0, b"x")).0, 409);
        let small = Sink::start(SinkConfig {
            max_chunk: 1000,
            ..SinkConfig::default()
        })
        .unwrap();
        small.ledger().open_run("run1", 10).unwrap();
        small.chunks().set_key("run1", KEY);
        assert_eq!(
            put_chunk(&small, "run1", "u", 0, &sealed(0, &[0u8; 2000])).0,
            413
        );
    }

    use sha2::Digest;
}

#[test]
fn downloads_are_the_seeded_keystream_and_need_the_token() {
    let (sink, _) = start(1 << 30);
    let token = sink.upload_url().rsplit('/').next().unwrap().to_owned();
    let seed = "000102030405060708090a0b0c0d0e0f";
    let mut r = ureq::get(&format!(
        "{}/download/{token}?bytes=300000&seed={seed}",
        sink.base_url()
    ))
    .call()
    .unwrap();
    let got = r
        .body_mut()
        .with_config()
        .limit(1 << 30)
        .read_to_vec()
        .unwrap();
    assert_eq!(got.len(), 300_000);
    // An independent oracle, not the code under test: the SHA-256 of
    //   head -c 300000 /dev/zero | openssl enc -aes-128-ctr \
    //     -K 000102030405060708090a0b0c0d0e0f -iv 00000000000000000000000000000000 -nosalt
    use sha2::Digest;
    assert_eq!(
        hex::encode(sha2::Sha256::digest(&got)),
        "286a8714f95804f1d72ee25850adf6f4b8a19f1ca89b2da26ca423d62c27fd50"
    );
    assert_eq!(
        status_of(
            ureq::get(&format!(
                "{}/download/wrong?bytes=1&seed={seed}",
                sink.base_url()
            ))
            .call()
        ),
        403
    );
    assert_eq!(
        status_of(ureq::get(&format!("{}/download/{token}?bytes=1", sink.base_url())).call()),
        400,
        "no seed"
    );
    assert_eq!(
        status_of(
            ureq::get(&format!(
                "{}/download/{token}?bytes={}&seed={seed}",
                sink.base_url(),
                (4u64 << 30) + 1
            ))
            .call()
        ),
        400,
        "over the cap"
    );
}
