use super::*;
use crate::domain::plan::Plan;
use crate::domain::run::{RunInfo, RunStatus};
use crate::domain::sample::{Observation, Sample, SampleStatus};
use std::fs::OpenOptions;

pub(crate) fn sample(run_id: &str, body: &str, rep: u32, mbps: f64) -> Sample {
    Sample {
        run_id: run_id.into(),
        body: body.into(),
        rep,
        env: crate::domain::sample::Environment {
            browser: "Chromium".into(),
            browser_version: "156".into(),
            os: "Linux".into(),
            extension_version: "0.1.0".into(),
        },
        bytes_sent: 1024,
        bytes_received: Some(1024),
        sha256_sent: "ab".into(),
        sha256_received: Some("ab".into()),
        intact: true,
        status: SampleStatus::Ok,
        error: None,
        http_status: None,
        rejection: None,
        page_ms: Some(1.0),
        sink_ms: Some(0.9),
        mbps: Some(mbps),
        head: None,
        content_type: None,
        hash_bound: false,
        sink_request_ms: None,
        negative_control: false,
        protocol: None,
        recorded_arm: None,
        upload_id: None,
        receipt: None,
        page_claim_differs: false,
        timeline: None,
        page_timing: None,
        observed: Observation::default(),
        digest_ms: None,
        page_load: None,
        client_ms: None,
        put_ms: None,
        chunk_tally: None,
        parts: None,
        module_failure: None,
        extra: Default::default(),
    }
}

/// A run record as the extension sends it (Chromium 156, default plan, ceiling 9000).
pub(crate) fn run_record(run_id: &str) -> Record {
    Record::Run(records::RunRecord {
        run: RunInfo {
            run_id: run_id.into(),
            env: crate::domain::sample::Environment {
                browser: "Chromium".into(),
                browser_version: "156".into(),
                os: "Linux".into(),
                extension_version: "0.1.0".into(),
            },
            plan: Plan::default(),
            source: "job".into(),
            started_at: None,
            sink: None,
            sink_url: None,
            extra: Default::default(),
        },
        host_version: "0.1.0".into(),
        recorded_at: records::now(),
        sink_ceiling_mbps: Some(9000.0),
        sink_ceiling_range: None,
        sink_hash_mbps: None,
        cpu: None,
        transport_ceilings: Default::default(),
        interleaved: None,
    })
}

/// `run_record` of an auto-sampled plan: `reps` first, then up to `max_reps` reps or
/// 60 s.
pub(crate) fn auto_run_record(run_id: &str, reps: u32, max_reps: u32) -> Record {
    let mut run = run_record(run_id);
    if let Record::Run(r) = &mut run {
        r.run.plan.reps = reps;
        r.run.plan.auto = Some(crate::domain::plan::AutoBudget {
            max_reps,
            max_seconds: 60,
        });
    }
    run
}

/// These records as `Store::read` returns them.
pub(crate) fn contents_of(records: Vec<Record>) -> StoreContents {
    StoreContents {
        records: records.into_iter().enumerate().collect(),
        warnings: vec![],
    }
}

#[test]
fn records_read_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    let written = vec![
        run_record("r1"),
        Record::Sample(sample("r1", "Blob", 0, 900.0)),
        Record::RunEnd {
            run_id: "r1".into(),
            status: RunStatus::Complete,
            reason: None,
            end_reason: None,
            recorded_at: records::now(),
            observation: None,
            auto_stop: None,
        },
    ];
    store.append(&written).unwrap();
    let got = store.read().unwrap();
    assert!(got.warnings.is_empty());
    assert_eq!(
        got.records.into_iter().map(|(_, r)| r).collect::<Vec<_>>(),
        written
    );
}

#[test]
fn unknown_sample_fields_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    let mut s = sample("r1", "Blob", 0, 1.0);
    s.extra.insert("chunk_index".into(), 3.into());
    store.append(&[Record::Sample(s.clone())]).unwrap();
    assert_eq!(store.read().unwrap().records[0].1, Record::Sample(s));
}

#[test]
fn torn_last_line_is_skipped_with_a_warning_naming_it_and_nothing_earlier_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    store
        .append(&[
            run_record("r1"),
            Record::Sample(sample("r1", "Blob", 0, 1.0)),
        ])
        .unwrap();
    store
        .append(&[Record::Sample(sample("r1", "Blob", 1, 2.0))])
        .unwrap();
    // Simulate a crash mid-write: cut the file in the middle of its last line.
    let len = std::fs::metadata(store.path()).unwrap().len();
    OpenOptions::new()
        .write(true)
        .open(store.path())
        .unwrap()
        .set_len(len - 20)
        .unwrap();

    let got = store.read().unwrap();
    assert_eq!(got.records.len(), 2, "the two complete lines survive");
    assert_eq!(got.warnings.len(), 1);
    assert_eq!(
        (got.warnings[0].line, got.warnings[0].kind),
        (3, StoreWarningKind::TornLastLine)
    );

    // The next append starts on a fresh line, so the torn one stays the only casualty.
    store
        .append(&[Record::Sample(sample("r1", "Blob", 2, 3.0))])
        .unwrap();
    let got = store.read().unwrap();
    assert_eq!(got.records.len(), 3);
    assert_eq!(got.records[2].0, 4, "new record is on line 4");
    assert_eq!(
        (got.warnings[0].line, got.warnings[0].kind),
        (3, StoreWarningKind::CorruptLine)
    );
}

#[test]
fn a_corrupt_line_in_the_middle_is_skipped_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    store.append(&[run_record("r1")]).unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(store.path())
        .unwrap()
        .write_all(b"{not json}\n")
        .unwrap();
    store
        .append(&[Record::Sample(sample("r1", "Blob", 0, 1.0))])
        .unwrap();
    let got = store.read().unwrap();
    assert_eq!(got.records.len(), 2);
    assert_eq!(
        (got.warnings[0].line, got.warnings[0].kind),
        (2, StoreWarningKind::CorruptLine),
        "{:?}",
        got.warnings
    );
}

#[cfg(unix)]
#[test]
fn store_file_and_dir_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let store = Store::in_dir(&state);
    store.append(&[run_record("r1")]).unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(store.path()), 0o600);
    assert_eq!(mode(&state), 0o700);
}

#[cfg(unix)]
#[test]
fn a_device_linked_in_place_of_the_store_is_refused_instead_of_read() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join(FILE_NAME)).unwrap();
    let store = Store::in_dir(dir.path());
    let denied = Err(std::io::ErrorKind::PermissionDenied);
    assert_eq!(
        store.read().map(|c| c.records.len()).map_err(|e| e.kind()),
        denied
    );
    let mut tail = StoreTail::from_end(store.path().to_owned());
    assert_eq!(tail.poll().map(|l| l.len()).map_err(|e| e.kind()), denied);
}

#[test]
fn tail_sees_only_new_complete_lines() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    store.append(&[run_record("old")]).unwrap();
    let mut tail = StoreTail::from_end(store.path().to_owned());
    assert!(tail.poll().unwrap().is_empty());
    store.append(&[run_record("new")]).unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(store.path())
        .unwrap()
        .write_all(b"{\"kind\":\"sam")
        .unwrap();
    let seen = tail.poll().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].run_id(), Some("new"));
    assert!(
        tail.poll().unwrap().is_empty(),
        "half a line is not reported"
    );
}

#[test]
fn past_the_first_few_corrupt_lines_one_warning_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    store.append(&[run_record("r1")]).unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(store.path())
        .unwrap()
        .write_all("x\n".repeat(100_000).as_bytes())
        .unwrap();
    store.append(&[run_record("r2")]).unwrap();
    let got = store.read().unwrap();
    assert_eq!(got.records.len(), 2);
    let kinds: Vec<_> = got.warnings.iter().map(|w| w.kind).collect();
    let named = vec![StoreWarningKind::CorruptLine; super::WARNINGS_NAMED];
    let rest = 100_000 - super::WARNINGS_NAMED;
    assert_eq!(
        kinds,
        [named, vec![StoreWarningKind::MoreSkipped { lines: rest }]].concat()
    );
}

/// One run's records as a pass over every line reads them, with their line numbers.
fn every_line_of(store: &Store, run_id: &str) -> Vec<(usize, Record)> {
    let mut out = Vec::new();
    let wanted = |id: &str| id == run_id;
    store
        .scan_picked(Pick::Records(Runs::Only(&wanted)), |n, p| {
            if let Parsed::Record(r) = p {
                out.push((n, r))
            }
        })
        .unwrap();
    out
}

/// One run's records through the index, and the warnings of reading them.
fn through_the_index(store: &Store, run_id: &str) -> (Vec<(usize, Record)>, Vec<StoreWarning>) {
    let mut out = Vec::new();
    let warnings = store.scan_run(run_id, |n, r| out.push((n, r))).unwrap();
    (out, warnings)
}

/// The run ids of the shared store fixture, each with its lines.
fn fixture_runs() -> Vec<String> {
    let fixture = include_str!("../../../tests/fixtures/store-v1.jsonl");
    let mut ids: Vec<String> = fixture
        .lines()
        .filter_map(|l| records::run_id_of(l.as_bytes()))
        .collect();
    ids.dedup();
    ids
}

/// A store written before the index existed (the fixture, its runs interleaved with
/// appends of new ones) reads each run through the index exactly as a pass over every
/// line reads it, line numbers included.
#[test]
fn an_old_store_is_indexed_and_each_run_reads_as_every_line_does() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    let fixture = include_str!("../../../tests/fixtures/store-v1.jsonl");
    std::fs::write(store.path(), fixture).unwrap();
    store
        .append(&[
            run_record("new"),
            Record::Sample(sample("new", "Blob", 0, 1.0)),
        ])
        .unwrap();
    // The fixture's runs again, by another writer: each run now has two stretches.
    let mut file = OpenOptions::new().append(true).open(store.path()).unwrap();
    file.write_all(fixture.as_bytes()).unwrap();
    store
        .append(&[Record::Sample(sample("new", "Blob", 1, 1.0))])
        .unwrap();
    assert!(dir.path().join(INDEX_DIR_NAME).is_dir());
    let mut runs = fixture_runs();
    runs.push("new".into());
    for id in &runs {
        let (indexed, warnings) = through_the_index(&store, id);
        assert!(warnings.is_empty(), "{id}: {warnings:?}");
        assert!(!indexed.is_empty(), "{id}");
        assert_eq!(indexed, every_line_of(&store, id), "{id}");
    }
}

/// A report of one run reads that run's lines only: a million-line mess elsewhere in
/// the store (here ten thousand corrupt lines) is never parsed, so it warns of nothing.
#[test]
fn one_run_is_read_without_reading_the_other_lines() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    store.append(&[run_record("a")]).unwrap();
    let mut file = OpenOptions::new().append(true).open(store.path()).unwrap();
    file.write_all("x\n".repeat(10_000).as_bytes()).unwrap();
    store
        .append(&[Record::Sample(sample("a", "Blob", 0, 1.0)), run_record("b")])
        .unwrap();
    let (indexed, warnings) = through_the_index(&store, "a");
    assert_eq!(indexed.len(), 2);
    assert_eq!(indexed[1].0, 10_002, "the sample's line number");
    assert_eq!(warnings, vec![], "no other line was parsed");
    assert_eq!(indexed, every_line_of(&store, "a"));
}

/// `--run last` is the run that started last, named from the index alone; older runs
/// that stored lines after it started do not make it theirs, and no run means no answer.
#[test]
fn the_newest_run_is_the_one_that_started_last_named_by_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    assert_eq!(store.newest_run_id(), None, "an empty store names no run");
    store
        .append(&[run_record("a"), run_record("b"), run_record("c")])
        .unwrap();
    store
        .append(&[
            Record::Sample(sample("a", "Blob", 0, 1.0)),
            Record::Sample(sample("b", "Blob", 0, 1.0)),
        ])
        .unwrap();
    assert_eq!(store.newest_run_id().as_deref(), Some("c"));
    store.append(&[run_record("d")]).unwrap();
    assert_eq!(store.newest_run_id().as_deref(), Some("d"));
}

/// A store replaced by another, or rewritten in place (same file, other lines), no
/// longer matches its index's fingerprint: it is indexed again, and read right.
#[test]
fn a_store_rewritten_in_place_is_indexed_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    store
        .append(&[run_record("a"), Record::Sample(sample("a", "Blob", 0, 1.0))])
        .unwrap();
    assert_eq!(through_the_index(&store, "a").0.len(), 2);
    let mut other = String::new();
    for r in [
        run_record("b"),
        run_record("a"),
        Record::Sample(sample("a", "Blob", 1, 2.0)),
    ] {
        other += &(serde_json::to_string(&r).unwrap() + "\n");
    }
    other += &"x".repeat(200);
    other += "\n";
    std::fs::write(store.path(), &other).unwrap();
    let (indexed, _) = through_the_index(&store, "a");
    assert_eq!(indexed, every_line_of(&store, "a"));
    assert_eq!(indexed.len(), 2);
}

/// A process killed after writing a run's entries and before recording how far the
/// index reaches leaves those entries to be written again: they are read once.
#[test]
fn entries_written_twice_are_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    store.append(&[run_record("a")]).unwrap();
    let covered = dir.path().join(INDEX_DIR_NAME).join("covered");
    let before = std::fs::read(&covered).unwrap();
    store
        .append(&[
            Record::Sample(sample("a", "Blob", 0, 1.0)),
            run_record("b"),
            Record::Sample(sample("a", "Blob", 1, 1.0)),
        ])
        .unwrap();
    std::fs::write(&covered, before).unwrap();
    store
        .append(&[Record::Sample(sample("a", "Blob", 2, 1.0))])
        .unwrap();
    let (indexed, _) = through_the_index(&store, "a");
    assert_eq!(indexed, every_line_of(&store, "a"));
    assert_eq!(indexed.len(), 4);
}

/// The runs left open, through the index, are the ones every start and end line says:
/// picked runs without an end, oldest first, whatever else their stretches hold.
#[test]
fn open_runs_through_the_index_are_what_every_line_says() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    let end = |id: &str| Record::RunEnd {
        run_id: id.into(),
        status: RunStatus::Complete,
        reason: None,
        end_reason: None,
        recorded_at: records::now(),
        observation: None,
        auto_stop: None,
    };
    for id in ["c", "a", "ended", "b"] {
        store.append(&[run_record(id)]).unwrap();
    }
    let mut job = run_record("job");
    if let Record::Run(r) = &mut job {
        r.run.source = "popup".into();
    }
    store.append(&[job]).unwrap();
    store
        .append(&[Record::Sample(sample("a", "Blob", 0, 1.0)), end("ended")])
        .unwrap();
    let which = |r: &RunRecord| r.run.source == "job";
    let indexed = store.open_runs(&which).unwrap();
    assert_eq!(indexed, ["c", "a", "b"]);
    assert_eq!(indexed, store.open_runs_of_every_line(&which).unwrap());
}

/// A process that holds the store's lock and does not let go (a native host stopped
/// with its browser) makes `append_within` give up after its wait, writing nothing;
/// once the lock is free it appends.
#[test]
fn an_append_within_a_wait_gives_up_on_a_lock_held_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::in_dir(dir.path());
    store.append(&[run_record("r")]).unwrap();
    let holder = std::fs::File::open(store.path()).unwrap();
    holder.lock().unwrap();
    let wait = std::time::Duration::from_millis(200);
    let started = std::time::Instant::now();
    let refused = store.append_within(&[run_record("s")], wait);
    assert_eq!(
        refused.map_err(|e| e.kind()),
        Err(io::ErrorKind::WouldBlock)
    );
    assert!(started.elapsed() >= wait);
    assert_eq!(store.read().unwrap().records.len(), 1);
    holder.unlock().unwrap();
    store.append_within(&[run_record("s")], wait).unwrap();
    assert_eq!(store.read().unwrap().records.len(), 2);
}
