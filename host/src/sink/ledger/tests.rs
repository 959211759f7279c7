use super::*;

fn tag(run: &str, id: &str) -> UploadTag {
    UploadTag::new(run, id).unwrap()
}

fn id(s: &str) -> UploadId {
    s.parse().unwrap()
}

fn cut(bytes: u64) -> Entry {
    Entry::Cut { bytes }
}

#[test]
fn a_record_is_taken_once_by_its_own_run() {
    let l = Ledger::default();
    l.reserve(&tag("r1", "u1")).unwrap();
    l.settle(&id("u1"), cut(5));
    assert_eq!(l.take("r2", &id("u1")), Claim::OtherRun, "another run's");
    assert_eq!(l.take("r1", &id("u1")), Claim::Found(cut(5)));
    assert_eq!(l.take("r1", &id("u1")), Claim::AlreadyTaken);
    assert_eq!(l.take("r1", &id("never")), Claim::Missing);
}

#[test]
fn a_reused_id_is_refused_even_after_its_record_was_taken() {
    let l = Ledger::default();
    l.reserve(&tag("r1", "u1")).unwrap();
    assert_eq!(l.reserve(&tag("r1", "u1")), Err(Refused::Reused));
    assert_eq!(
        l.reserve(&tag("r2", "u1")),
        Err(Refused::Reused),
        "ids are the sink's, not per run"
    );
    l.settle(&id("u1"), cut(1));
    let _ = l.take("r1", &id("u1"));
    assert_eq!(l.reserve(&tag("r1", "u1")), Err(Refused::Reused));
    assert_eq!(l.admit_chunk(&tag("r1", "u1")), Err(Refused::Reused));
    assert_eq!(Refused::Reused.status(), 409);
}

#[test]
fn a_settled_record_is_not_overwritten() {
    let l = Ledger::default();
    l.reserve(&tag("r1", "u1")).unwrap();
    l.settle(&id("u1"), cut(1));
    l.settle(&id("u1"), cut(2));
    assert_eq!(l.take("r1", &id("u1")), Claim::Found(cut(1)));
}

#[test]
fn at_the_cap_new_ids_are_refused_and_known_ones_go_on() {
    let l = Ledger::with_cap(3);
    for i in 0..3 {
        l.admit_chunk(&tag("r1", &format!("u{i}"))).unwrap();
    }
    assert_eq!(l.reserve(&tag("r1", "u3")), Err(Refused::Full));
    assert_eq!(l.admit_chunk(&tag("r1", "u3")), Err(Refused::Full));
    assert_eq!(Refused::Full.status(), 429);
    l.admit_chunk(&tag("r1", "u0"))
        .expect("a file's next chunk");
    assert_eq!(l.len(), 3);
    // Taking leaves a tombstone, so it frees nothing; the run's end does.
    let _ = l.take("r1", &id("u0"));
    assert_eq!(l.reserve(&tag("r2", "v")), Err(Refused::Full));
    l.forget_run("r1");
    assert!(l.is_empty());
    l.reserve(&tag("r2", "v")).unwrap();
}

#[test]
fn forgetting_a_run_keeps_the_others() {
    let l = Ledger::default();
    l.reserve(&tag("r1", "a")).unwrap();
    l.reserve(&tag("r2", "b")).unwrap();
    l.forget_run("r1");
    assert_eq!(l.take("r1", &id("a")), Claim::Missing);
    assert_eq!(l.take("r2", &id("b")), Claim::Found(Entry::InFlight));
}

#[test]
fn chunks_fold_into_one_record_whose_digest_is_the_pages() {
    let l = Ledger::default();
    let t = tag("r1", "enc");
    let shas = ["aa", "bb"];
    for (index, sha) in shas.iter().enumerate() {
        l.admit_chunk(&t).unwrap();
        let report = ChunkReport {
            index: index as u64,
            bytes: 40,
            plaintext_bytes: 12,
            tag_ok: true,
            plaintext_sha256: Some((*sha).into()),
            order: Order::Ok,
            timeline: None,
        };
        l.add_chunk(&t.upload, &report);
    }
    let Claim::Found(Entry::Chunks(tally)) = l.take("r1", &t.upload) else {
        panic!("no tally")
    };
    assert_eq!(
        (
            tally.chunks,
            tally.tags_ok,
            tally.in_order,
            tally.plaintext_bytes
        ),
        (2, 2, 2, 24)
    );
    let expected = hex::encode(ring::digest::digest(&ring::digest::SHA256, b"aabb"));
    assert_eq!(tally.digest_of_digests(), expected);
    assert_eq!(
        l.admit_chunk(&tag("r2", "enc")),
        Err(Refused::Reused),
        "another run's chunks under a taken id"
    );
}

#[test]
fn a_query_names_its_run_and_upload_or_neither() {
    assert_eq!(UploadTag::of_query("/upload/t?probe=1"), Ok(None));
    assert_eq!(
        UploadTag::of_query("/upload/t?arm=Blob&run=r-1&upload=u_2&rep=0"),
        Ok(Some(tag("r-1", "u_2")))
    );
    for bad in [
        "/upload/t?upload=u1",
        "/upload/t?run=r1",
        "/upload/t?run=r1&upload=a%2Fb",
        "/upload/t?run=../x&upload=u1",
        "/upload/t?run=r1&upload=",
    ] {
        assert!(UploadTag::of_query(bad).is_err(), "{bad}");
    }
}
