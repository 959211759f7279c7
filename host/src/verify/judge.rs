//! The host's judgement of one upload: whether its bytes arrived as sent is decided
//! from the figures (what was sent against what the sink received), never from the
//! page's `intact` flag or status. A page that says "intact" beside a different hash,
//! or beside 5 bytes of 1024, is stored as corrupted. The received figures themselves
//! are the sink's own record (`lookup.rs`); a sample with no record is never intact.

use crate::domain::received::Receipt;
use crate::domain::sample::{Sample, SampleError, SampleStatus};

/// The sample as the host stores it: status, `intact` and the throughput are derived
/// here. A failure the page saw (fetch rejected, aborted, an error) is never intact, and
/// its kind is held to the sink's record (`judge_failure`).
pub fn judge(mut s: Sample) -> Sample {
    let failed = matches!(
        s.status,
        SampleStatus::Unsupported | SampleStatus::Aborted | SampleStatus::Error
    );
    let status = if failed {
        judge_failure(&s)
    } else {
        judge_figures(&s)
    };
    s.intact = status == SampleStatus::Ok;
    s.mbps = if s.intact {
        s.page_ms.and_then(|ms| mbps(s.bytes_sent, ms))
    } else {
        None
    };
    if !failed {
        // Judged from the sink's record alone: whatever the page said of its error (a
        // count it claims arrived, an HTTP status) is not what was stored.
        s.error = mismatch(&s, status).map(|kind| kind.as_str().to_owned());
        (s.http_status, s.rejection) = (None, None);
    } else if s.error.is_none() {
        s.error = mismatch(&s, status).map(|kind| kind.as_str().to_owned());
    }
    s.status = status;
    s
}

/// A failure the page saw, believed only as far as the sink's record allows. Bytes the
/// sink received under the upload's id mean it began and stopped part-way: aborted,
/// with the sink's count, never "unsupported" (a ReadableStream over h2 that carried
/// 12 of 16 MiB and then failed to fetch was stored so before). A sink that could not
/// be asked says nothing of the browser: an error. Otherwise the page's word stands.
///
/// A record found with no count is an upload the sink was still receiving when the
/// host claimed it (`Entry::InFlight`): the page saw its fetch fail first. The request
/// reached the sink, so the browser did send this body: aborted too, never
/// "unsupported". (On the emulated link a Blob over h2 that failed after 3 of 16 MiB
/// was stored `unsupported` so, its record claimed before the sink saw the stream end.)
fn judge_failure(s: &Sample) -> SampleStatus {
    match (s.receipt, s.bytes_received) {
        (Some(Receipt::SinkUnreachable), _) => SampleStatus::Error,
        (Some(Receipt::Found), Some(arrived)) if arrived > 0 => SampleStatus::Aborted,
        (Some(Receipt::Found), None) => SampleStatus::Aborted,
        _ => s.status,
    }
}

/// Ok when length and SHA-256 match (and, for encrypted chunks, every tag verified);
/// corrupted when the sink reported other figures; an error when it reported none.
fn judge_figures(s: &Sample) -> SampleStatus {
    // Samples stored before the ledger carry no receipt; every new one does.
    if s.receipt.is_some_and(|r| r != Receipt::Found) {
        return SampleStatus::Error;
    }
    let Some(received) = s.bytes_received else {
        return SampleStatus::Error;
    };
    let same_hash = s.sha256_received.as_deref() == Some(s.sha256_sent.as_str());
    if received == s.bytes_sent && same_hash && chunk_tags_ok(s) {
        SampleStatus::Ok
    } else {
        SampleStatus::Corrupted
    }
}

/// An encrypted file needs every chunk's AES-GCM tag verified and (since the ledger)
/// every chunk in order, once, as the sink counted them.
fn chunk_tags_ok(s: &Sample) -> bool {
    s.chunk_tally.is_none_or(|t| t.whole())
}

/// What the sink's record says went wrong, as a kind; None for an intact upload.
fn mismatch(s: &Sample, status: SampleStatus) -> Option<SampleError> {
    match (status, s.bytes_received, s.receipt) {
        (SampleStatus::Ok, ..) => None,
        (SampleStatus::Corrupted, Some(_), _) => Some(SampleError::DifferentBytes),
        (_, _, Some(r)) if r != Receipt::Found => Some(SampleError::NoRecord),
        _ => Some(SampleError::NothingReceived),
    }
}

/// Mbps (10^6 bits per second), computed as the page computes it (`lib/pairing.js`),
/// so a stored figure is the same number whichever side derived it.
pub fn mbps(bytes: u64, ms: f64) -> Option<f64> {
    (ms > 0.0).then(|| (bytes as f64 * 8.0) / (ms / 1000.0) / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `fields`, with `more`'s added where `fields` has none.
    fn merged(mut fields: serde_json::Value, more: &serde_json::Value) -> serde_json::Value {
        for (k, v) in more.as_object().unwrap() {
            fields
                .as_object_mut()
                .unwrap()
                .entry(k)
                .or_insert(v.clone());
        }
        fields
    }

    fn claimed(fields: serde_json::Value) -> Sample {
        let mut base = json!({"run_id": "r", "body": "Blob", "rep": 0, "bytes_sent": 1024,
            "bytes_received": 1024, "sha256_sent": "aa", "sha256_received": "aa",
            "intact": true, "status": "ok", "error": null, "page_ms": 2.0, "sink_ms": 1.0,
            "mbps": 4.096});
        for (k, v) in fields.as_object().unwrap() {
            base[k] = v.clone();
        }
        serde_json::from_value(base).unwrap()
    }

    #[test]
    fn matching_figures_are_intact_and_the_host_computes_the_rate() {
        let s = judge(claimed(json!({"mbps": 99999.0})));
        assert_eq!((s.status, s.intact), (SampleStatus::Ok, true));
        assert!((s.mbps.unwrap() - 4.096).abs() < 1e-9, "{:?}", s.mbps);
    }

    #[test]
    fn a_page_claiming_intact_beside_other_figures_is_not_believed() {
        for lie in [
            json!({"sha256_received": "bb"}),
            json!({"bytes_received": 5}),
            json!({"sha256_received": null}),
        ] {
            let s = judge(claimed(lie.clone()));
            assert_eq!(
                (s.status, s.intact, s.mbps),
                (SampleStatus::Corrupted, false, None),
                "{lie}"
            );
        }
        let s = judge(claimed(json!({"bytes_received": null})));
        assert_eq!((s.status, s.intact), (SampleStatus::Error, false));
    }

    /// The page's `error` (its kind, or an older page's sentence naming a count it says
    /// arrived) is never stored beside the record's figures: the host names its own.
    #[test]
    fn the_error_stored_is_the_records_kind_never_the_pages() {
        let said = json!({"status": "corrupted", "intact": false, "http_status": 413,
            "error": "sent 1024 bytes, the sink received 999 with a different SHA-256"});
        let fields = |s: Sample| (s.status, s.error_kind(), s.http_status, s.error);
        let stored = judge(claimed(merged(json!({"sha256_received": "bb"}), &said)));
        assert_eq!(
            fields(stored),
            (
                SampleStatus::Corrupted,
                Some(SampleError::DifferentBytes),
                None,
                Some("different-bytes".into())
            )
        );
        let stored = judge(claimed(said.clone()));
        assert_eq!(fields(stored), (SampleStatus::Ok, None, None, None));
        let none = merged(json!({"bytes_received": null, "receipt": "missing"}), &said);
        assert_eq!(
            judge(claimed(none)).error_kind(),
            Some(SampleError::NoRecord)
        );
        let empty = merged(json!({"bytes_received": null, "receipt": "found"}), &said);
        let empty = judge(claimed(empty));
        assert_eq!(empty.error_kind(), Some(SampleError::NothingReceived));
    }

    /// A failure the page saw keeps its kind and its numbers: they say what the browser
    /// and the sink's answer were, not what arrived.
    #[test]
    fn a_failure_keeps_the_pages_kind_and_status() {
        let refused = json!({"status": "error", "error": "sink-status", "http_status": 413,
            "bytes_received": null, "sha256_received": null, "receipt": "missing"});
        let s = judge(claimed(refused));
        assert_eq!(
            (s.status, s.error_kind(), s.http_status),
            (
                SampleStatus::Error,
                Some(SampleError::SinkStatus),
                Some(413)
            )
        );
    }

    #[test]
    fn a_page_calling_whole_bytes_corrupted_is_corrected_too() {
        let s = judge(claimed(json!({"status": "corrupted", "intact": false})));
        assert_eq!((s.status, s.intact), (SampleStatus::Ok, true));
    }

    #[test]
    fn failures_before_anything_arrived_keep_their_kind_and_are_never_intact() {
        let s = judge(claimed(
            json!({"status": "unsupported", "error": "TypeError"}),
        ));
        assert_eq!(
            (s.status, s.intact, s.mbps),
            (SampleStatus::Unsupported, false, None)
        );
    }

    /// The emulated link's failure: a ReadableStream over h2 that the page saw rejected
    /// ("Failed to fetch") after the sink had 12,140,499 of its 16 MiB.
    #[test]
    fn a_failure_after_bytes_arrived_is_aborted_with_the_sinks_count() {
        let cut = json!({"status": "unsupported", "error": "TypeError: Failed to fetch",
            "bytes_sent": 16_777_216, "bytes_received": 12_140_499, "sha256_received": null,
            "receipt": "found"});
        let s = judge(claimed(cut));
        assert_eq!(
            (s.status, s.intact, s.bytes_received, s.mbps),
            (SampleStatus::Aborted, false, Some(12_140_499), None)
        );
        // Nothing reached the sink under its id: the page's word stands.
        let refused = json!({"status": "unsupported", "error": "TypeError",
            "bytes_received": null, "sha256_received": null, "receipt": "missing"});
        assert_eq!(judge(claimed(refused)).status, SampleStatus::Unsupported);
        // The sink had the request and was still receiving it when it was claimed
        // (seen on the emulated link: a Blob over h2 cut after 3 of 16 MiB).
        let in_flight = json!({"status": "unsupported", "error": "TypeError: Failed to fetch",
            "bytes_received": null, "sha256_received": null, "receipt": "found"});
        let s = judge(claimed(in_flight));
        assert_eq!((s.status, s.intact), (SampleStatus::Aborted, false));
        let gone = json!({"status": "unsupported", "error": "TypeError: Failed to fetch",
            "bytes_received": null, "sha256_received": null, "receipt": "sink-unreachable"});
        assert_eq!(judge(claimed(gone)).status, SampleStatus::Error);
    }

    #[test]
    fn an_encrypted_upload_needs_every_tag_and_every_chunk_in_order() {
        let tally = |chunks, tags_ok, in_order| {
            let mut s = claimed(json!({}));
            s.chunk_tally = Some(crate::domain::received::ChunkTally {
                chunks,
                tags_ok,
                in_order,
            });
            judge(s).status
        };
        assert_eq!(tally(4, 3, Some(4)), SampleStatus::Corrupted);
        assert_eq!(tally(4, 4, Some(3)), SampleStatus::Corrupted);
        assert_eq!(tally(4, 4, Some(4)), SampleStatus::Ok);
        assert_eq!(tally(4, 4, None), SampleStatus::Ok);
    }
}
