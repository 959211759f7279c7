//! From a page's samples to the records the host stores: each sample's received side
//! comes from the sink's ledger under the sample's upload id, never from the page. The
//! page supplies only what it sent (bytes, SHA-256 of them, its time, its error);
//! `judge` then derives the status from those figures. Both ways results arrive (native
//! messaging, and the page reporting over HTTP) call `ingest`.

use crate::arm::ArmKind;
use crate::judge::judge;
use crate::model::Sample;
use crate::sink::ledger::{Claim, Entry, Ledger, Records, UploadId};
use serde_json::{Map, Value};

/// What the host found in its ledger for a sample, stored with it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Receipt {
    /// The sink's record, claimed by this sample.
    Found,
    /// The sample named no upload id.
    NoId,
    /// The sink received nothing under the sample's id.
    Missing,
    /// The id names an upload of another run.
    OtherRun,
    /// Another sample already claimed the record.
    AlreadyTaken,
    /// The record is of another kind of transfer than the sample's arm (an encrypted
    /// file's chunks for a plain body, say).
    WrongKind,
    /// The remote sink that holds the record could not be asked.
    SinkUnreachable,
}

/// The sample's fields that describe what the sink received, as a plain upload's reply
/// names them (so a field added to the reply is one of them without being listed), plus
/// the encrypted workload's tallies and what this step itself writes.
fn received_keys() -> Vec<String> {
    let mut keys: Vec<String> = reply_fields(&probe_report()).keys().cloned().collect();
    keys.extend(
        [
            "chunks",
            "tags_ok",
            "chunks_in_order",
            "timeline",
            "receipt",
            "page_claim_differs",
        ]
        .map(String::from),
    );
    keys
}

fn probe_report() -> crate::sink::ledger::UploadReport {
    crate::sink::ledger::UploadReport {
        body: crate::sink::hashing::BodyDigest::default().finish(0.0, false),
        content_type: None,
        request_ms: 0.0,
        protocol: "http/1.1".into(),
    }
}

/// A plain upload's reply as sample fields: the reply's names, three of them renamed to
/// say they are the received side.
fn reply_fields(report: &crate::sink::ledger::UploadReport) -> Map<String, Value> {
    let Value::Object(reply) = serde_json::to_value(report).expect("report serialises") else {
        unreachable!("a struct serialises to an object")
    };
    reply
        .into_iter()
        .map(|(k, v)| {
            let k = match k.as_str() {
                "bytes" => "bytes_received".to_owned(),
                "sha256" => "sha256_received".to_owned(),
                "request_ms" => "sink_request_ms".to_owned(),
                _ => k,
            };
            (k, v)
        })
        .collect()
}

/// The samples of `run_id` as the host stores them. The caller has checked that the
/// host started `run_id` and that every sample belongs to it. Each sample's ledger
/// record is consumed: a second sample naming it finds it taken.
pub fn ingest(ledger: &Ledger, run_id: &str, claimed: Vec<Sample>) -> Vec<Sample> {
    ingest_from(&mut &*ledger, run_id, claimed)
}

/// `ingest`, with the records wherever they are (a remote sink's, `sink/remote_ledger.rs`).
pub fn ingest_from(records: &mut dyn Records, run_id: &str, claimed: Vec<Sample>) -> Vec<Sample> {
    let keys = received_keys();
    claimed
        .into_iter()
        .map(|s| judge(from_ledger(records, run_id, s, &keys)))
        .collect()
}

fn from_ledger(ledger: &mut dyn Records, run_id: &str, mut s: Sample, keys: &[String]) -> Sample {
    let arm = s.arm();
    s.recorded_arm = Some(arm.clone());
    let upload_id = s.upload_id.clone();
    let Value::Object(mut fields) = serde_json::to_value(&s).expect("sample serialises") else {
        unreachable!("a sample serialises to an object")
    };
    let page_claim = (
        fields.get("bytes_received").cloned(),
        fields.get("sha256_received").cloned(),
    );
    let is_download = arm.kind == ArmKind::Download;
    for k in keys {
        // A download's receiver is the page: its received figures are all there is.
        if !(is_download && (k == "bytes_received" || k == "sha256_received")) {
            fields.remove(k);
        }
    }
    let receipt = match &upload_id {
        None => Receipt::NoId,
        Some(id) => match arm.kind {
            ArmKind::Parallel { streams } => parallel(ledger, run_id, id, streams, &mut fields),
            _ => single(ledger, run_id, id, &arm.kind, &mut fields),
        },
    };
    if receipt != Receipt::Found {
        // Nothing the sink recorded: nothing received, whatever the page says.
        fields.remove("bytes_received");
        fields.remove("sha256_received");
    }
    let stored = (
        fields.get("bytes_received").cloned(),
        fields.get("sha256_received").cloned(),
    );
    let null_or = |v: Option<Value>| v.unwrap_or(Value::Null);
    if !is_download
        && (null_or(page_claim.0), null_or(page_claim.1)) != (null_or(stored.0), null_or(stored.1))
    {
        log::warn!("a sample's claimed received figures differ from the sink's record; the record is stored");
        fields.insert("page_claim_differs".into(), true.into());
    }
    fields.insert(
        "receipt".into(),
        serde_json::to_value(receipt).expect("json"),
    );
    serde_json::from_value(Value::Object(fields)).expect("a sample's own fields read back")
}

/// One upload, one encrypted file or one download under one id.
fn single(
    ledger: &mut dyn Records,
    run_id: &str,
    id: &UploadId,
    kind: &ArmKind,
    fields: &mut Map<String, Value>,
) -> Receipt {
    let entry = match ledger.take(run_id, id) {
        Claim::Found(entry) => entry,
        other => return receipt_of(&other),
    };
    match (kind, entry) {
        (ArmKind::Encrypted { .. }, Entry::Chunks(t)) => {
            fields.insert("bytes_received".into(), t.plaintext_bytes.into());
            fields.insert("sha256_received".into(), t.digest_of_digests().into());
            fields.insert("chunks".into(), t.chunks.into());
            fields.insert("tags_ok".into(), t.tags_ok.into());
            fields.insert("chunks_in_order".into(), t.in_order.into());
            fields.insert(
                "timeline".into(),
                serde_json::to_value(&t.timeline).expect("json"),
            );
        }
        (ArmKind::Download, Entry::Download(d)) => download(&d, fields),
        (ArmKind::Encrypted { .. } | ArmKind::Download, _) => return Receipt::WrongKind,
        (_, Entry::Body(report)) => fields.extend(reply_fields(&report)),
        (_, Entry::Cut { bytes }) => {
            fields.insert("bytes_received".into(), bytes.into());
        }
        // Still in flight when its sample came: nothing had arrived whole.
        (_, Entry::InFlight) => {}
        (_, Entry::Chunks(_) | Entry::Download(_) | Entry::Parts(_) | Entry::Taken) => {
            return Receipt::WrongKind
        }
    }
    Receipt::Found
}

/// A download's sent side is the sink's: what it was asked for, and the hash of those
/// bytes, computed here from the seed. The page cannot have received more than the
/// sink handed on.
fn download(d: &crate::sink::ledger::DownloadRecord, fields: &mut Map<String, Value>) {
    fields.insert("bytes_sent".into(), d.bytes_asked.into());
    let expected = crate::sink::download::sha256_of(d.seed, d.bytes_asked);
    fields.insert("sha256_sent".into(), expected.into());
    let claimed = fields.get("bytes_received").and_then(Value::as_u64);
    if let Some(got) = claimed.filter(|&got| got > d.bytes_sent) {
        log::warn!(
            "a page claims {got} downloaded bytes; the sink handed on {}",
            d.bytes_sent
        );
        fields.insert("bytes_received".into(), d.bytes_sent.into());
        fields.insert("page_claim_differs".into(), true.into());
    }
}

/// Every stream of a parallel upload under its own id (`UploadId::stream`): the bytes
/// summed, the hash the streams share (none when they differ).
fn parallel(
    ledger: &mut dyn Records,
    run_id: &str,
    id: &UploadId,
    streams: u64,
    fields: &mut Map<String, Value>,
) -> Receipt {
    let (mut bytes, mut hashes, mut receipt) = (0u64, Vec::new(), Receipt::Found);
    let mut timelines = Vec::new();
    for i in 0..streams {
        let Some(stream) = id.stream(i) else {
            return Receipt::Missing;
        };
        match ledger.take(run_id, &stream) {
            Claim::Found(Entry::Body(r)) => {
                bytes += r.body.bytes;
                hashes.push(Some(r.body.sha256));
                timelines.extend(r.body.timeline);
                fields.insert("protocol".into(), r.protocol.into());
            }
            Claim::Found(Entry::Cut { bytes: got }) => {
                bytes += got;
                hashes.push(None);
            }
            Claim::Found(Entry::InFlight) => hashes.push(None),
            Claim::Found(_) => receipt = Receipt::WrongKind,
            other if receipt == Receipt::Found => receipt = receipt_of(&other),
            _ => {}
        }
    }
    if receipt != Receipt::Found {
        return receipt;
    }
    let first = hashes.first().cloned().flatten();
    let shared = hashes
        .iter()
        .all(|h| *h == first)
        .then_some(first)
        .flatten();
    fields.insert("bytes_received".into(), bytes.into());
    fields.insert("sha256_received".into(), shared.into());
    let timeline = crate::sink::timeline::combine(&timelines);
    fields.insert(
        "timeline".into(),
        serde_json::to_value(timeline).expect("json"),
    );
    Receipt::Found
}

fn receipt_of(claim: &Claim) -> Receipt {
    match claim {
        Claim::Found(_) => Receipt::Found,
        Claim::Missing => Receipt::Missing,
        Claim::OtherRun => Receipt::OtherRun,
        Claim::AlreadyTaken => Receipt::AlreadyTaken,
        Claim::Unreachable => Receipt::SinkUnreachable,
    }
}

#[cfg(test)]
mod tests;
