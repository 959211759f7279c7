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
