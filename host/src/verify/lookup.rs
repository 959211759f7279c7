//! What the ledger holds under a sample's upload id, typed by the sample's arm: one
//! body, an encrypted file's chunks, a download, or a parallel upload's streams.

use super::PageClaim;
use crate::domain::arm::ArmKind;
use crate::domain::limits::LIMITS;
use crate::domain::received::PartsSummary;
use crate::domain::received::{ChunkTally, Receipt, Received};
use crate::domain::timeline::Timeline;
use crate::domain::upload_id::UploadId;
use crate::sink::expected::{self, ModuleRun, PartsCheck};
use crate::sink::ledger::{Claim, DownloadRecord, Entry, Records, UploadReport};
use crate::sink::parts::PartTally;

/// What a sample found: the receipt, the received side (nothing unless found), and for
/// a download the sent side, which is the sink's.
pub(super) struct Found {
    pub receipt: Receipt,
    pub received: Received<Timeline>,
    pub sent: Option<(u64, String)>,
    /// A download's page claimed more than the sink handed on.
    pub claim_differs: bool,
}

impl Found {
    pub fn none(receipt: Receipt) -> Found {
        Found {
            receipt,
            received: Received::nothing(),
            sent: None,
            claim_differs: false,
        }
    }

    fn of(received: Received<Timeline>) -> Found {
        Found {
            receipt: Receipt::Found,
            received,
            sent: None,
            claim_differs: false,
        }
    }
}

/// The record of upload `id` for a sample of `run_id` whose arm is `kind`, consumed.
pub(super) fn look_up(
    records: &mut dyn Records,
    run_id: &str,
    id: &UploadId,
    kind: &ArmKind,
    claim: &PageClaim,
) -> Found {
    match kind {
        ArmKind::Parallel { streams } => parallel(records, run_id, id, *streams),
        ArmKind::Body { .. } | ArmKind::Unknown { .. } => match records.take(run_id, id) {
            Claim::Found(entry) => body(entry),
            other => Found::none(receipt_of(&other)),
        },
        ArmKind::Encrypted { .. } => match records.take(run_id, id) {
            Claim::Found(Entry::Chunks(t)) => Found::of(Received {
                bytes: Some(t.plaintext_bytes),
                sha256: Some(t.digest_of_digests()),
                timeline: t.timeline.clone(),
                chunks: Some(ChunkTally {
                    chunks: t.chunks,
                    tags_ok: t.tags_ok,
                    in_order: Some(t.in_order),
                }),
                ..Received::nothing()
            }),
            Claim::Found(_) => Found::none(Receipt::WrongKind),
            other => Found::none(receipt_of(&other)),
        },
        ArmKind::Download => match records.take(run_id, id) {
            Claim::Found(Entry::Download(d)) => download(&d, claim),
            Claim::Found(_) => Found::none(Receipt::WrongKind),
            other => Found::none(receipt_of(&other)),
        },
        ArmKind::Module { .. } => match (records.modules(run_id), records.take(run_id, id)) {
            (Some(run), Claim::Found(Entry::Parts(t))) => module(&t, run),
            (_, Claim::Found(_)) | (None, _) => Found::none(Receipt::WrongKind),
            (_, other) => Found::none(receipt_of(&other)),
        },
    }
}

/// A module's upload, every part checked against the bytes the host knows it was given
/// (`sink::expected`; every upload of a run is given its stream 0): the sent side is the
/// host's, the received side what the parts add up to. Its SHA-256 is the expected one
/// only when every offset arrived and every part is the bytes at its offset; a single
/// whole request's is its own digest.
fn module(t: &PartTally, run: ModuleRun) -> Found {
    let expected = run.sha256(0, run.bytes);
    let (check, assembly) = expected::check(t, |at, len| run.sha256(at, len), run.bytes);
    let sha256 = match (&check, &t.parts[..]) {
        (PartsCheck::Intact, _) => Some(expected.clone()),
        (_, [only]) if only.offset == 0 && t.refused == 0 => only.sha256.clone(),
        _ => None,
    };
    if check != PartsCheck::Intact {
        log::warn!("module upload: {check:?} ({assembly:?})");
    }
    Found {
        receipt: Receipt::Found,
        received: Received {
            bytes: Some(assembly.covered + assembly.beyond),
            sha256,
            head: t.head.clone(),
            timeline: t.timeline.clone(),
            parts: Some(PartsSummary {
                requests: t.parts.len() as u64,
                resent_bytes: assembly.resent(),
                refused: t.refused,
                offset_queries: t.heads,
            }),
            ..Received::nothing()
        },
        sent: Some((run.bytes, expected)),
        claim_differs: false,
    }
}

/// One plain upload's record.
fn body(entry: Entry) -> Found {
    match entry {
        Entry::Body(report) => Found::of(reply(*report)),
        Entry::Cut { bytes } => Found::of(Received {
            bytes: Some(bytes),
            ..Received::nothing()
        }),
        // Still in flight when its sample came: nothing had arrived whole.
        Entry::InFlight => Found::of(Received::nothing()),
        Entry::Chunks(_) | Entry::Download(_) | Entry::Parts(_) | Entry::Taken => {
            Found::none(Receipt::WrongKind)
        }
    }
}

/// A plain upload's reply, which is also its record, as the received side.
fn reply(r: UploadReport) -> Received<Timeline> {
    Received {
        bytes: Some(r.body.bytes),
        sha256: Some(r.body.sha256),
        sink_ms: Some(r.body.sink_ms),
        request_ms: Some(r.request_ms),
        head: Some(r.body.head),
        content_type: r.content_type,
        hash_bound: r.body.hash_bound,
        protocol: Some(r.protocol),
        timeline: r.body.timeline,
        chunks: None,
        parts: None,
    }
}

/// A download's sent side is the sink's: what it was asked for, and the hash of those
/// bytes, computed here from the seed. The page is the receiver, so its figures are the
/// received side; but it cannot have received more than the sink handed on.
fn download(d: &DownloadRecord, claim: &PageClaim) -> Found {
    let expected = crate::sink::download::sha256_of(d.seed, d.bytes_asked);
    let mut bytes = claim.bytes;
    let over = bytes.filter(|&got| got > d.bytes_sent);
    if let Some(got) = over {
        log::warn!(
            "a page claims {got} downloaded bytes; the sink handed on {}",
            d.bytes_sent
        );
        bytes = Some(d.bytes_sent);
    }
    Found {
        receipt: Receipt::Found,
        received: Received {
            bytes,
            sha256: claim.sha256.clone(),
            ..Received::nothing()
        },
        sent: Some((d.bytes_asked, expected)),
        claim_differs: over.is_some(),
    }
}

/// Every stream of a parallel upload under its own id (`UploadId::stream`): the bytes
/// summed, the hash the streams share (none when they differ).
fn parallel(records: &mut dyn Records, run_id: &str, id: &UploadId, streams: u64) -> Found {
    // The caller held the arm to its plan (`fit.rs`); this loop is bounded here too, since
    // its count is the page's.
    if !LIMITS
        .streams
        .contains(u32::try_from(streams).unwrap_or(u32::MAX))
    {
        return Found::none(Receipt::Missing);
    }
    let (mut bytes, mut hashes, mut receipt) = (0u64, Vec::new(), Receipt::Found);
    let (mut timelines, mut protocol) = (Vec::new(), None);
    for i in 0..streams {
        let Some(stream) = id.stream(i) else {
            return Found::none(Receipt::Missing);
        };
        match records.take(run_id, &stream) {
            Claim::Found(Entry::Body(r)) => {
                bytes += r.body.bytes;
                hashes.push(Some(r.body.sha256));
                timelines.extend(r.body.timeline);
                protocol = Some(r.protocol);
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
        return Found::none(receipt);
    }
    let first = hashes.first().cloned().flatten();
    let shared = hashes
        .iter()
        .all(|h| *h == first)
        .then_some(first)
        .flatten();
    Found::of(Received {
        bytes: Some(bytes),
        sha256: shared,
        protocol,
        timeline: crate::sink::timeline::combine(&timelines),
        ..Received::nothing()
    })
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
