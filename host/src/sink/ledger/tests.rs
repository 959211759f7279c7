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

/// A ledger with runs r1 and r2 open, room for 100 records each.
fn opened() -> Ledger {
    let l = Ledger::default();
    for run in ["r1", "r2"] {
        l.open_run(run, 100).unwrap();
    }
    l
}

#[test]
fn a_record_is_taken_once_by_its_own_run() {
    let l = opened();
    l.reserve(&tag("r1", "u1")).unwrap();
    l.settle(&id("u1"), cut(5));
    assert_eq!(l.take("r2", &id("u1")), Claim::OtherRun, "another run's");
    assert_eq!(l.take("r1", &id("u1")), Claim::Found(cut(5)));
    assert_eq!(l.take("r1", &id("u1")), Claim::AlreadyTaken);
    assert_eq!(l.take("r1", &id("never")), Claim::Missing);
}

#[test]
fn a_reused_id_is_refused_even_after_its_record_was_taken() {
    let l = opened();
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
    let l = opened();
    l.reserve(&tag("r1", "u1")).unwrap();
    l.settle(&id("u1"), cut(1));
    l.settle(&id("u1"), cut(2));
    assert_eq!(l.take("r1", &id("u1")), Claim::Found(cut(1)));
}

#[test]
fn at_the_cap_new_ids_are_refused_and_known_ones_go_on() {
    let l = Ledger::with_cap(3);
    assert_eq!(
        l.open_run("r1", 1000),
        Ok(3),
        "no more room than the ledger has"
    );
    for i in 0..3 {
        l.admit_chunk(&tag("r1", &format!("u{i}"))).unwrap();
    }
    assert_eq!(l.reserve(&tag("r1", "u3")), Err(Refused::RunFull));
    assert_eq!(l.admit_chunk(&tag("r1", "u3")), Err(Refused::RunFull));
    assert_eq!(Refused::RunFull.status(), 429);
    l.admit_chunk(&tag("r1", "u0"))
        .expect("a file's next chunk");
    assert_eq!(l.len(), 3);
    // Taking leaves a tombstone, so it frees nothing; the run's end does.
    let _ = l.take("r1", &id("u0"));
    assert_eq!(l.open_run("r2", 1), Err(Refused::Full), "r1 is in use");
    l.forget_run("r1");
    assert!(l.is_empty());
    l.open_run("r2", 1).unwrap();
    l.reserve(&tag("r2", "v")).unwrap();
}

/// 10k uploads under a run nobody opened took every record and locked every other
/// device out (429) for the session: now they are refused (403) and take nothing.
#[test]
fn uploads_of_a_run_not_opened_are_refused_and_take_no_room() {
    let l = Ledger::default();
    l.open_run("mine", 10).unwrap();
    for i in 0..10_000 {
        assert_eq!(
            l.reserve(&tag("notarun", &format!("u{i}"))),
            Err(Refused::NotOpen)
        );
    }
    assert_eq!(l.admit_chunk(&tag("notarun", "c")), Err(Refused::NotOpen));
    assert_eq!(Refused::NotOpen.status(), 403);
    assert!(l.is_empty());
    l.reserve(&tag("mine", "u0")).unwrap();
}

/// A run's room is its own: one run at its cap leaves another's uploads taken.
#[test]
fn one_run_at_its_room_leaves_another_run_its_own() {
    let l = Ledger::with_cap(10);
    l.open_run("greedy", 4).unwrap();
    l.open_run("honest", 6).unwrap();
    for i in 0..4 {
        l.reserve(&tag("greedy", &format!("g{i}"))).unwrap();
    }
    assert_eq!(l.reserve(&tag("greedy", "g4")), Err(Refused::RunFull));
    for i in 0..6 {
        l.reserve(&tag("honest", &format!("h{i}"))).unwrap();
    }
}

/// An ended run takes nothing more: not a new id, not a re-used one, not a reopening;
/// the ended runs remembered are bounded.
#[test]
fn an_ended_run_takes_nothing_more() {
    let l = opened();
    l.reserve(&tag("r1", "u1")).unwrap();
    l.forget_run("r1");
    assert_eq!(l.reserve(&tag("r1", "u1")), Err(Refused::Ended));
    assert_eq!(l.reserve(&tag("r1", "u2")), Err(Refused::Ended));
    assert_eq!(l.admit_chunk(&tag("r1", "c")), Err(Refused::Ended));
    assert_eq!(l.open_run("r1", 5), Err(Refused::Ended));
    assert_eq!(Refused::Ended.status(), 410);
    for i in 0..INPUT.ledger_ended_runs + 10 {
        let run = format!("e{i}");
        l.open_run(&run, 1).unwrap();
        l.forget_run(&run);
    }
    let runs = l.runs.lock().unwrap();
    assert_eq!(runs.ended.len(), INPUT.ledger_ended_runs);
    assert_eq!(runs.ended_set.len(), INPUT.ledger_ended_runs);
}

/// Without room, opening a run ends the one idle longest, never one in use.
#[test]
fn opening_a_run_evicts_only_a_run_idle_long_enough() {
    let l = Ledger::with_limits(4, std::time::Duration::from_millis(200));
    l.open_run("old", 2).unwrap();
    l.open_run("busy", 2).unwrap();
    l.reserve(&tag("old", "o")).unwrap();
    assert_eq!(l.open_run("new", 2), Err(Refused::Full), "none idle yet");
    std::thread::sleep(std::time::Duration::from_millis(150));
    l.reserve(&tag("busy", "b")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    l.open_run("new", 2).unwrap();
    assert_eq!(
        l.take("old", &id("o")),
        Claim::Missing,
        "the idle run was ended"
    );
    assert_eq!(l.reserve(&tag("old", "o2")), Err(Refused::Ended));
    assert_eq!(l.take("busy", &id("b")), Claim::Found(Entry::InFlight));
}

#[test]
fn forgetting_a_run_keeps_the_others() {
    let l = opened();
    l.reserve(&tag("r1", "a")).unwrap();
    l.reserve(&tag("r2", "b")).unwrap();
    l.forget_run("r1");
    assert_eq!(l.take("r1", &id("a")), Claim::Missing);
    assert_eq!(l.take("r2", &id("b")), Claim::Found(Entry::InFlight));
}

#[test]
fn chunks_fold_into_one_record_whose_digest_is_the_pages() {
    let l = opened();
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
