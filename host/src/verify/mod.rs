//! From a page's claim to the sample the host stores: the received side comes from the
//! sink's ledger under the sample's upload id (`lookup.rs`, typed as `Received`), never
//! from the page, which supplies only what it sent (bytes, their SHA-256, its time, its
//! error); `judge.rs` then derives the status from those figures. Both ways results
//! arrive (native messaging, and `serve`'s page over HTTP) call `verify`.
//!
//! A new kind of arm is one match arm in `lookup::look_up`, typed.

pub mod fit;
mod judge;
mod lookup;

pub use judge::{judge, mbps};

use crate::domain::arm::ArmKind;
use crate::domain::limits::INPUT;
use crate::domain::received::{Receipt, Received};
use crate::domain::sample::Sample;
use crate::domain::timeline::Timeline;
use crate::sink::ledger::{Ledger, Records};

/// The samples of `run_id` as the host stores them. The caller has checked that the
/// host started `run_id` and that every sample belongs to it. Each sample's ledger
/// record is consumed: a second sample naming it finds it taken.
pub fn verify(ledger: &Ledger, run_id: &str, claimed: Vec<Sample>) -> Vec<Sample> {
    verify_from(&mut &*ledger, run_id, claimed)
}

/// `verify`, with the records wherever they are (a remote sink's, `sink/remote_ledger.rs`).
pub fn verify_from(records: &mut dyn Records, run_id: &str, claimed: Vec<Sample>) -> Vec<Sample> {
    claimed
        .into_iter()
        .map(|s| judge(stored(records, run_id, s)))
        .collect()
}

/// What the page claimed to have received: compared with the record, never stored
/// (a download's excepted: its receiver is the page).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PageClaim {
    pub bytes: Option<u64>,
    pub sha256: Option<String>,
}

/// The claimed sample with its received side replaced by the ledger's record.
fn stored(records: &mut dyn Records, run_id: &str, mut s: Sample) -> Sample {
    let arm = s.arm();
    let claim = PageClaim {
        bytes: s.bytes_received.take(),
        sha256: s.sha256_received.take(),
    };
    let found = match &s.upload_id {
        None => lookup::Found::none(Receipt::NoId),
        Some(id) => lookup::look_up(records, run_id, id, &arm.kind, &claim),
    };
    let download = matches!(arm.kind, ArmKind::Download);
    s.recorded_arm = Some(arm);
    if let Some((bytes, sha256)) = found.sent {
        s.bytes_sent = bytes;
        s.sha256_sent = sha256;
    }
    let differs = if download {
        found.claim_differs
    } else {
        claim.bytes != found.received.bytes || claim.sha256 != found.received.sha256
    };
    if differs && !download {
        log::warn!("a sample's claimed received figures differ from the sink's record; the record is stored");
    }
    apply(&mut s, found.received);
    s.page_claim_differs = differs;
    s.receipt = Some(found.receipt);
    s
}

/// The record's figures as the sample's received side, every one of them: what the
/// record lacks, the sample lacks. A remote sink's record is a peer's word on its
/// lengths: each text is clipped and a timeline over the bounds of any the sink makes
/// is dropped (`domain::limits::INPUT`).
fn apply(s: &mut Sample, mut r: Received<Timeline>) {
    let clip = |t: &mut Option<String>, chars: usize| {
        if let Some((cut, _)) = t.as_deref().and_then(|t| t.char_indices().nth(chars)) {
            t.as_mut().expect("some").truncate(cut);
        }
    };
    clip(&mut r.content_type, INPUT.content_type_chars);
    clip(&mut r.head, crate::sink::hashing::HEAD_LEN);
    clip(&mut r.protocol, 16);
    r.timeline = r.timeline.filter(|t| {
        t.points.len() <= INPUT.timeline_points
            && t.stalls.len() <= INPUT.timeline_stalls
            && t.requests.len() <= INPUT.timeline_points
    });
    s.bytes_received = r.bytes;
    s.sha256_received = r.sha256;
    s.sink_ms = r.sink_ms;
    s.sink_request_ms = r.request_ms;
    s.head = r.head;
    s.content_type = r.content_type;
    s.hash_bound = r.hash_bound;
    s.protocol = r.protocol;
    s.timeline = r.timeline;
    s.chunk_tally = r.chunks;
    s.parts = r.parts;
}

#[cfg(test)]
mod tests;
