use super::*;
use crate::domain::sample::SampleStatus;
use crate::sink::chunks::{ChunkReport, Order};
use crate::sink::hashing::BodyDigest;
use crate::sink::ledger::{Claim, Entry, UploadReport, UploadTag};
use serde_json::{json, Value};

const BODY: &[u8] = b"0123456789";

fn sha(bytes: &[u8]) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA256, bytes))
}

fn received(bytes: &[u8]) -> Entry {
    let mut d = BodyDigest::default();
    d.update(bytes);
    Entry::Body(Box::new(UploadReport {
        body: d.finish(1.5, false),
        content_type: Some("application/octet-stream".into()),
        request_ms: 2.5,
        protocol: "h2".into(),
    }))
}

/// A ledger with runs r1 and r2 open.
fn open_ledger() -> Ledger {
    let l = Ledger::default();
    for run in ["r1", "r2"] {
        l.open_run(run, 100).unwrap();
    }
    l
}

fn ledger_with(entries: &[(&str, &str, Entry)]) -> Ledger {
    let l = open_ledger();
    for (run, id, entry) in entries {
        let tag = UploadTag::new(run, id).unwrap();
        l.reserve(&tag).unwrap();
        l.settle(&tag.upload, entry.clone());
    }
    l
}

/// What a page sends: its sent side, and a claim about the received side.
fn claimed(fields: Value) -> Sample {
    let mut base = json!({"run_id": "r1", "body": "Blob", "rep": 0, "upload_id": "u1",
        "bytes_sent": BODY.len(), "sha256_sent": sha(BODY), "bytes_received": BODY.len(),
        "sha256_received": sha(BODY), "intact": true, "status": "ok", "error": null,
        "page_ms": 2.0, "sink_ms": 1.0, "mbps": 1.0});
    for (k, v) in fields.as_object().unwrap() {
        base[k] = v.clone();
    }
    serde_json::from_value(base).unwrap()
}

fn one(l: &Ledger, fields: Value) -> Sample {
    verify(l, "r1", vec![claimed(fields)]).remove(0)
}

#[test]
fn the_sinks_record_is_the_received_side() {
    let l = ledger_with(&[("r1", "u1", received(BODY))]);
    let s = one(&l, json!({"sink_ms": 999.0, "protocol": "http/1.1"}));
    assert_eq!((s.status, s.intact), (SampleStatus::Ok, true));
    assert_eq!(s.receipt, Some(Receipt::Found));
    assert_eq!((s.sink_ms, s.sink_request_ms), (Some(1.5), Some(2.5)));
    assert_eq!(s.protocol.as_deref(), Some("h2"));
    assert_eq!(s.head.as_deref(), Some("0123456789"));
    assert!(!s.page_claim_differs);
}

#[test]
fn a_claim_the_record_contradicts_is_replaced_by_the_record() {
    // The page sent the right bytes but claims the sink got other ones: the record says
    // they arrived whole.
    let l = ledger_with(&[("r1", "u1", received(BODY))]);
    let s = one(&l, json!({"bytes_received": 3, "sha256_received": "bb"}));
    assert_eq!((s.status, s.bytes_received), (SampleStatus::Ok, Some(10)));
    assert!(s.page_claim_differs);
    // The sink got other bytes; the page claims they were the right ones.
    let l = ledger_with(&[("r1", "u1", received(b"0123456780"))]);
    let s = one(&l, json!({}));
    assert_eq!((s.status, s.intact), (SampleStatus::Corrupted, false));
    assert_eq!(s.sha256_received, Some(sha(b"0123456780")));
    assert!(s.page_claim_differs);
}

#[test]
fn no_record_means_nothing_received_and_never_intact() {
    let l = ledger_with(&[("r2", "u2", received(BODY))]);
    for (fields, receipt) in [
        (json!({"upload_id": "never-sent"}), Receipt::Missing),
        (json!({"upload_id": null}), Receipt::NoId),
        (json!({"upload_id": "u2"}), Receipt::OtherRun),
    ] {
        let s = one(&l, fields.clone());
        assert_eq!(s.receipt, Some(receipt), "{fields}");
        assert_eq!(
            (
                s.status,
                s.intact,
                s.bytes_received,
                s.sha256_received.as_deref()
            ),
            (SampleStatus::Error, false, None, None),
            "{fields}"
        );
        assert!(s.error.is_some());
    }
    assert_eq!(
        l.take("r2", &"u2".parse().unwrap()),
        Claim::Found(received(BODY)),
        "another run's record is left for it"
    );
}

#[test]
fn one_record_vouches_for_one_sample() {
    let l = ledger_with(&[("r1", "u1", received(BODY))]);
    let s = verify(
        &l,
        "r1",
        vec![claimed(json!({})), claimed(json!({"rep": 1}))],
    );
    assert_eq!(s[0].status, SampleStatus::Ok);
    assert_eq!(
        (s[1].status, s[1].receipt),
        (SampleStatus::Error, Some(Receipt::AlreadyTaken))
    );
    let again = one(&l, json!({}));
    assert_eq!(again.receipt, Some(Receipt::AlreadyTaken));
}

#[test]
fn a_cut_upload_stores_what_arrived() {
    let l = ledger_with(&[("r1", "u1", Entry::Cut { bytes: 4 })]);
    let s = one(&l, json!({}));
    assert_eq!(
        (s.status, s.bytes_received),
        (SampleStatus::Corrupted, Some(4))
    );
}

/// The page saw its fetch rejected, but the sink's record holds what arrived before the
/// cut: the upload was aborted part-way, with the sink's count; a rejection the sink saw
/// nothing of stays the browser's refusal.
#[test]
fn a_rejected_upload_the_sink_saw_bytes_of_is_aborted_not_unsupported() {
    let page_saw = json!({"status": "unsupported", "error": "TypeError: Failed to fetch",
        "intact": false, "bytes_received": null, "sha256_received": null});
    let l = ledger_with(&[("r1", "u1", Entry::Cut { bytes: 4 })]);
    let s = one(&l, page_saw.clone());
    assert_eq!(
        (s.status, s.intact, s.bytes_received),
        (SampleStatus::Aborted, false, Some(4))
    );
    // Still being received when claimed (the page saw the failure first): the request
    // reached the sink, so it is aborted, not the browser's refusal.
    let l = ledger_with(&[("r1", "u1", Entry::InFlight)]);
    let s = one(&l, page_saw.clone());
    assert_eq!((s.status, s.bytes_received), (SampleStatus::Aborted, None));
    let l = ledger_with(&[("r1", "u1", Entry::Cut { bytes: 0 })]);
    assert_eq!(one(&l, page_saw).status, SampleStatus::Unsupported);
}

fn chunk(index: u64, plain: &[u8], tag_ok: bool, order: Order) -> ChunkReport {
    ChunkReport {
        index,
        bytes: plain.len() as u64 + 28,
        plaintext_bytes: plain.len() as u64,
        tag_ok,
        plaintext_sha256: Some(sha(plain)),
        order,
        timeline: None,
    }
}

fn encrypted(l: &Ledger, reports: &[ChunkReport]) -> Sample {
    let tag = UploadTag::new("r1", "enc").unwrap();
    for r in reports {
        l.admit_chunk(&tag).unwrap();
        l.add_chunk(&tag.upload, r);
    }
    let digests = sha(format!("{}{}", sha(b"01234"), sha(b"56789")).as_bytes());
    one(
        l,
        json!({"upload_id": "enc", "body": "encrypted serial 5", "sha256_sent": digests,
            "arm": {"kind": "encrypted", "chunk_bytes": 5, "schedule": "serial"},
            "chunks": 2, "tags_ok": 2}),
    )
}

#[test]
fn an_encrypted_file_is_judged_from_the_sinks_tally() {
    let whole = [
        chunk(0, b"01234", true, Order::Ok),
        chunk(1, b"56789", true, Order::Ok),
    ];
    let s = encrypted(&open_ledger(), &whole);
    assert_eq!(
        (s.status, s.receipt),
        (SampleStatus::Ok, Some(Receipt::Found))
    );
    let bad_tag = [
        chunk(0, b"01234", true, Order::Ok),
        chunk(1, b"56789", false, Order::Ok),
    ];
    assert_eq!(
        encrypted(&open_ledger(), &bad_tag).status,
        SampleStatus::Corrupted
    );
    let repeated = [
        chunk(0, b"01234", true, Order::Ok),
        chunk(0, b"01234", true, Order::Repeated),
    ];
    assert_eq!(
        encrypted(&open_ledger(), &repeated).status,
        SampleStatus::Corrupted
    );
    let plain_body = ledger_with(&[("r1", "enc", received(BODY))]);
    let s = one(
        &plain_body,
        json!({"upload_id": "enc", "arm": {"kind": "encrypted", "chunk_bytes": 5, "schedule": "serial"}}),
    );
    assert_eq!(
        (s.status, s.receipt),
        (SampleStatus::Error, Some(Receipt::WrongKind))
    );
}

fn parallel(l: &Ledger) -> Sample {
    one(
        l,
        json!({"upload_id": "p", "body": "parallel x2", "bytes_sent": 20,
            "arm": {"kind": "parallel", "streams": 2}, "bytes_received": 20}),
    )
}

#[test]
fn a_parallel_upload_needs_every_stream() {
    let both = ledger_with(&[
        ("r1", "p-s0", received(BODY)),
        ("r1", "p-s1", received(BODY)),
    ]);
    let s = parallel(&both);
    assert_eq!((s.status, s.bytes_received), (SampleStatus::Ok, Some(20)));
    let one_stream = ledger_with(&[("r1", "p-s0", received(BODY))]);
    let s = parallel(&one_stream);
    assert_eq!(
        (s.status, s.receipt),
        (SampleStatus::Error, Some(Receipt::Missing))
    );
    let differ = ledger_with(&[
        ("r1", "p-s0", received(BODY)),
        ("r1", "p-s1", received(b"x")),
    ]);
    assert_eq!(parallel(&differ).status, SampleStatus::Corrupted);
}

fn download(l: &Ledger, got: u64, sha_got: &str) -> Sample {
    one(
        l,
        json!({"upload_id": "d", "body": "download", "arm": {"kind": "download"},
            "bytes_sent": 1000, "sha256_sent": "page-says", "bytes_received": got,
            "sha256_received": sha_got}),
    )
}

#[test]
fn a_download_is_judged_against_what_the_sink_served() {
    let seed = [7u8; 16];
    let expected = crate::sink::download::sha256_of(seed, 1000);
    let served = |sent| {
        Entry::Download(crate::sink::ledger::DownloadRecord {
            seed,
            bytes_asked: 1000,
            bytes_sent: sent,
        })
    };
    let whole = ledger_with(&[("r1", "d", served(1000))]);
    let s = download(&whole, 1000, &expected);
    assert_eq!(
        (s.status, s.sha256_sent.as_str()),
        (SampleStatus::Ok, expected.as_str())
    );
    // The page claims all of it; the sink handed on half.
    let half = ledger_with(&[("r1", "d", served(500))]);
    let s = download(&half, 1000, &expected);
    assert_eq!(
        (s.status, s.bytes_received),
        (SampleStatus::Corrupted, Some(500))
    );
    assert!(s.page_claim_differs);
    let s = download(&open_ledger(), 1000, &expected);
    assert_eq!(
        (s.status, s.receipt),
        (SampleStatus::Error, Some(Receipt::Missing))
    );
}

/// A timeline of `frames` 1-byte frames 1 ms apart, arriving at `clock` on the sink's.
fn arrival(frames: u64, clock: f64) -> crate::domain::timeline::Timeline {
    let start = std::time::Instant::now();
    let mut r = crate::sink::timeline::Recorder::new(start);
    for i in 1..=frames {
        r.frame(start + std::time::Duration::from_millis(i), 1);
    }
    let mut t = r.finish();
    t.sink_clock_ms = clock;
    t
}

#[test]
fn the_timeline_stored_is_the_sinks_and_never_the_pages() {
    let Entry::Body(mut report) = received(BODY) else {
        unreachable!()
    };
    let sinks = arrival(10, 5.0);
    report.body.timeline = Some(sinks.clone());
    let l = ledger_with(&[("r1", "u1", Entry::Body(report))]);
    let forged = serde_json::to_value(arrival(3, 0.0)).unwrap();
    let s = one(&l, json!({ "timeline": forged }));
    assert_eq!(s.timeline, Some(sinks));
    // No record: no timeline, whatever the page sends.
    let s = one(&open_ledger(), json!({ "timeline": forged }));
    assert_eq!(s.timeline, None);
}

#[test]
fn an_encrypted_files_chunk_timelines_are_folded_on_one_axis() {
    let mut first = chunk(0, b"01234", true, Order::Ok);
    first.timeline = Some(arrival(5, 100.0));
    let mut second = chunk(1, b"56789", true, Order::Ok);
    second.timeline = Some(arrival(5, 150.0)); // 45 ms after the first's last byte
    let s = encrypted(&open_ledger(), &[first, second]);
    let t = s.timeline.expect("a combined timeline");
    assert_eq!(t.requests.len(), 2);
    assert_eq!((t.bytes, t.stall_count), (10, 1));
    assert_eq!(t.stalls[0].ms, 46.0);
}

#[test]
fn a_parallel_arm_of_more_streams_than_any_plan_finds_nothing_and_takes_nothing() {
    let l = ledger_with(&[("r1", "p-s0", received(BODY))]);
    let t = std::time::Instant::now();
    let s = one(
        &l,
        json!({"upload_id": "p", "arm": {"kind": "parallel", "streams": 1u64 << 62}}),
    );
    assert!(t.elapsed() < std::time::Duration::from_secs(1));
    assert_eq!(
        (s.status, s.receipt),
        (SampleStatus::Error, Some(Receipt::Missing))
    );
    assert_eq!(
        l.take("r1", &"p-s0".parse().unwrap()),
        Claim::Found(received(BODY))
    );
}

/// A remote sink's record is a peer's word: its texts are clipped and a timeline over
/// any the sink makes is dropped before a sample keeps them.
#[test]
fn a_records_texts_and_timeline_are_held_to_their_bounds() {
    let Entry::Body(mut report) = received(BODY) else {
        unreachable!()
    };
    report.content_type = Some("t".repeat(30_000));
    report.protocol = "p".repeat(1000);
    let mut t = serde_json::to_value(arrival(3, 0.0)).unwrap();
    t["points"] = json!((0..600).map(|i| json!([i as f64, i])).collect::<Vec<_>>());
    report.body.timeline = Some(serde_json::from_value(t).unwrap());
    let l = ledger_with(&[("r1", "u1", Entry::Body(report))]);
    let s = one(&l, json!({}));
    assert_eq!(s.status, SampleStatus::Ok);
    assert_eq!(
        s.content_type.unwrap().len(),
        crate::domain::limits::INPUT.content_type_chars
    );
    assert_eq!(s.protocol.unwrap().len(), 16);
    assert_eq!(s.timeline, None);
}

/// What the host keeps of a page's failure: its kind, the sink's status as a number, and
/// the browser's words clipped like the error (a page's text is bounded before it is stored).
#[test]
fn a_pages_failure_is_kept_typed_and_its_texts_are_clipped() {
    let long = "TypeError: ".to_owned() + &"x".repeat(5000);
    let page_saw = json!({"status": "unsupported", "error": "fetch-rejected",
        "rejection": long, "http_status": 413, "intact": false,
        "bytes_received": null, "sha256_received": null});
    let s = fit::only_known(claimed(page_saw));
    let max = crate::domain::limits::INPUT.error_chars;
    assert_eq!(s.rejection.as_ref().map(|r| r.chars().count()), Some(max));
    assert_eq!(
        (s.error_kind(), s.http_status),
        (
            Some(crate::domain::sample::SampleError::FetchRejected),
            Some(413)
        )
    );
    assert!(s.extra.is_empty(), "{:?}", s.extra);
}

/// A module's failure as the page tells it: its kind kept, its numbers and texts bounded
/// (a timeout no plan allows, a blocked URL of 5000 characters), never intact.
#[test]
fn a_modules_failure_keeps_its_kind_and_its_numbers_bounded() {
    use crate::domain::sample::SampleError;
    use crate::domain::workload::{ModuleFailure, MAX_BLOCKED_CHARS, MAX_TIMEOUT_MS};
    for (failure, clipped) in [
        (
            json!({"kind": "timed-out", "timeout_ms": u64::MAX}),
            ModuleFailure::TimedOut {
                timeout_ms: Some(MAX_TIMEOUT_MS),
            },
        ),
        (
            json!({"kind": "blocked", "directive": "connect-src", "url": "x".repeat(5000)}),
            ModuleFailure::Blocked {
                directive: "connect-src".into(),
                url: "x".repeat(MAX_BLOCKED_CHARS),
            },
        ),
    ] {
        let page_saw = json!({"status": "error", "error": "module-failed", "intact": true,
            "module_failure": failure, "bytes_received": null, "sha256_received": null});
        let s = judge(fit::only_known(claimed(page_saw)));
        assert_eq!(s.error_kind(), Some(SampleError::ModuleFailed));
        assert_eq!((s.status, s.intact), (SampleStatus::Error, false));
        assert_eq!(s.module_failure, Some(clipped));
    }
}
