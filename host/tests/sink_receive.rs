//! The receive path: the sink answers at the last body byte and the digest follows, so
//! a slow hasher delays the verdict, never the upload. Shown with a deliberately slow
//! hasher (the `slow_hash` seam), over real loopback HTTP.

use std::time::Duration;
use unobserved::sink::ceiling::{probe_bytes, Client};
use unobserved::sink::{Sink, SinkConfig, HEADER_BYTES, HEADER_HASH_BOUND};

fn sink(queue: u64, slow_per_mib: Duration) -> Sink {
    Sink::start(SinkConfig {
        hash_queue_bytes: queue,
        slow_hash: Some(slow_per_mib),
        ..SinkConfig::default()
    })
    .unwrap()
}

fn path(sink: &Sink) -> String {
    sink.upload_path()
}

/// SHA-256 of `data` repeated to `total` bytes, by an implementation the sink does not use.
fn expected_sha(data: &[u8], total: u64) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    let mut left = total;
    while left > 0 {
        let n = left.min(data.len() as u64) as usize;
        h.update(&data[..n]);
        left -= n as u64;
    }
    hex::encode(h.finalize())
}

fn json(body: &[u8]) -> serde_json::Value {
    serde_json::from_slice(body).unwrap()
}

#[test]
fn headers_leave_at_the_last_byte_and_the_digest_follows() {
    // 16 MiB at 100 ms per MiB: hashing takes 1.6 s; the headers must not wait for it.
    let sink = sink(64 << 20, Duration::from_millis(100));
    let data = probe_bytes(1 << 20);
    let total = 16u64 << 20;
    let started = std::time::Instant::now();
    let reply = Client::connect(sink.addr())
        .unwrap()
        .put(&path(&sink), total, &data)
        .unwrap();
    let to_body = started.elapsed();
    assert_eq!(reply.status, 200);
    assert!(
        to_body >= Duration::from_millis(1600),
        "the body waits for the slow hasher ({to_body:?})"
    );
    assert!(
        reply.to_headers < Duration::from_millis(800),
        "headers took {:?}: they waited for the hasher",
        reply.to_headers
    );
    let v = json(&reply.body);
    assert_eq!(v["bytes"], total);
    assert_eq!(v["sha256"], expected_sha(&data, total));
    assert_eq!(v["hash_bound"], false);
}

#[test]
fn the_headers_carry_the_byte_count_and_the_body_the_digest() {
    let sink = sink(64 << 20, Duration::ZERO);
    let mut resp = ureq::put(&sink.upload_url()).send(&b"abc"[..]).unwrap();
    assert_eq!(resp.headers()[HEADER_BYTES], "3");
    assert_eq!(resp.headers()[HEADER_HASH_BOUND], "0");
    let v: serde_json::Value = serde_json::from_reader(resp.body_mut().as_reader()).unwrap();
    assert_eq!(
        v["sha256"],
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn a_body_bigger_than_the_queue_is_flagged_hash_bound_and_still_verified() {
    // A 1 MiB queue and a hasher at ~20 MiB/s: an 8 MiB body must wait for it.
    let sink = sink(1 << 20, Duration::from_millis(50));
    let data = probe_bytes(1 << 20);
    let total = 8u64 << 20;
    let mut client = Client::connect(sink.addr()).unwrap();
    let reply = client.put(&path(&sink), total, &data).unwrap();
    assert_eq!(reply.status, 200);
    let v = json(&reply.body);
    assert_eq!(v["hash_bound"], true);
    assert_eq!(v["sha256"], expected_sha(&data, total));
    // The same kept-alive connection carries the next upload, which fits.
    let small = client.put(&path(&sink), 4096, &data).unwrap();
    assert_eq!(json(&small.body)["hash_bound"], false);
    assert_eq!(json(&small.body)["sha256"], expected_sha(&data, 4096));
}

#[test]
fn the_ceiling_probe_times_the_headers_not_the_hash() {
    // With hashing at 200 ms per MiB, a 4 MiB probe would take over 0.8 s per round
    // if the probe waited for digests: at most ~40 Mbps. Headers at the last byte put
    // the receive ceiling far above that, and the hash rate is reported apart.
    let sink = sink(64 << 20, Duration::from_millis(200));
    let c = unobserved::sink::ceiling::measure(sink.addr(), &path(&sink), 4 << 20).unwrap();
    let r = c.receive;
    assert!(
        r.receive_mbps > 200.0,
        "receive ceiling {:.0} Mbps follows the slow hasher",
        r.receive_mbps
    );
    assert!(r.receive_range.0 <= r.receive_mbps && r.receive_mbps <= r.receive_range.1);
    // Any CPU of the last decade hashes between 0.1 and 1000 Gbit/s: a unit slip fails.
    assert!(c.hash_mbps > 100.0 && c.hash_mbps < 1e6, "{}", c.hash_mbps);
}
