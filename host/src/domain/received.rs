//! What the sink recorded of one upload, typed: the received side of a stored sample.
//! The page's word about it is never one of these (`verify/`).

use serde::{Deserialize, Serialize};

/// What the host found in its ledger for a sample, stored with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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

impl Receipt {
    pub fn as_str(self) -> &'static str {
        match self {
            Receipt::Found => "found",
            Receipt::NoId => "no-id",
            Receipt::Missing => "missing",
            Receipt::OtherRun => "other-run",
            Receipt::AlreadyTaken => "already-taken",
            Receipt::WrongKind => "wrong-kind",
            Receipt::SinkUnreachable => "sink-unreachable",
        }
    }
}

/// An encrypted file's chunks as the sink counted them: how many arrived, how many
/// AES-GCM tags it verified, and how many came in order. Stored flat in a sample as
/// `chunks`, `tags_ok` and `chunks_in_order` (samples stored before the ledger have the
/// page's first two and no order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChunkTally {
    pub chunks: u64,
    pub tags_ok: u64,
    #[serde(
        rename = "chunks_in_order",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub in_order: Option<u64>,
}

impl ChunkTally {
    /// Every chunk's tag verified, and (where counted) every chunk in order, once.
    pub fn whole(&self) -> bool {
        self.tags_ok == self.chunks && self.in_order.is_none_or(|n| n == self.chunks)
    }

    /// Chunks whose tag did not verify.
    pub fn bad_tags(&self) -> u64 {
        self.chunks.saturating_sub(self.tags_ok)
    }
}

/// A workload module's upload of several requests, as the sink counted them: stored in
/// a sample as `parts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PartsSummary {
    /// Requests whose bytes arrived (parts, PATCHes).
    pub requests: u64,
    /// Bytes that arrived more than once (a retried or overlapping part).
    pub resent_bytes: u64,
    /// Requests refused for carrying more than the module was given.
    pub refused: u64,
    /// tus HEAD requests: a client asking where to resume.
    #[serde(default)]
    pub offset_queries: u64,
}

/// What the sink recorded of one upload (or of an encrypted file's chunks, a parallel
/// upload's streams, a download's bytes), whichever kind of transfer it was. `T` is the
/// arrival record's type (`domain::timeline::Timeline`), a parameter only so that this
/// module names nothing outside itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Received<T> {
    /// Bytes that arrived; None when nothing arrived whole (still in flight).
    pub bytes: Option<u64>,
    /// SHA-256 of what arrived (for chunks, of their digests); None when it was not
    /// one body (a cut upload, streams that differ).
    pub sha256: Option<String>,
    /// From the first body byte to the last.
    pub sink_ms: Option<f64>,
    /// From the request's headers to its last byte.
    pub request_ms: Option<f64>,
    /// The first bytes of the body, as text.
    pub head: Option<String>,
    pub content_type: Option<String>,
    /// The body outgrew the sink's hash queue (`Sample::hash_bound`).
    pub hash_bound: bool,
    /// "http/1.1" or "h2", as the sink saw it.
    pub protocol: Option<String>,
    pub timeline: Option<T>,
    /// An encrypted file's chunks.
    pub chunks: Option<ChunkTally>,
    /// A module upload's requests.
    pub parts: Option<PartsSummary>,
}

impl<T> Default for Received<T> {
    fn default() -> Self {
        Received {
            bytes: None,
            sha256: None,
            sink_ms: None,
            request_ms: None,
            head: None,
            content_type: None,
            hash_bound: false,
            protocol: None,
            timeline: None,
            chunks: None,
            parts: None,
        }
    }
}

impl<T> Received<T> {
    /// Nothing arrived whole: what a record with no figures (an upload still in flight)
    /// and every receipt but `Found` come to.
    pub fn nothing() -> Self {
        Self::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_is_whole_only_with_every_tag_and_every_chunk_in_order() {
        let t = |chunks, tags_ok, in_order| ChunkTally {
            chunks,
            tags_ok,
            in_order,
        };
        assert!(t(4, 4, Some(4)).whole());
        assert!(t(4, 4, None).whole(), "stored before the order was counted");
        assert!(!t(4, 3, Some(4)).whole());
        assert!(!t(4, 4, Some(3)).whole());
        assert_eq!(t(4, 1, None).bad_tags(), 3);
    }

    #[test]
    fn receipts_are_named_as_they_are_stored() {
        for r in [
            Receipt::Found,
            Receipt::NoId,
            Receipt::Missing,
            Receipt::OtherRun,
            Receipt::AlreadyTaken,
            Receipt::WrongKind,
            Receipt::SinkUnreachable,
        ] {
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
    }
}
