//! A workload module's upload as the sink received it: one request or many (a whole
//! body, chunk PUTs at byte offsets, tus PATCHes), each kept as a part at its offset with
//! its own digest, so the ledger reassembles the upload by offset whatever order, and
//! however many times, its requests came. The host then checks every part against the
//! bytes it knows the module was given (`expected.rs`) and judges the whole.
//!
//! Memory is bounded: at most MAX_PARTS parts per upload, each a few dozen bytes, and
//! the requests' arrival records folded into one bounded timeline as they come.

use super::timeline;
use crate::domain::timeline::Timeline;
use serde::{Deserialize, Serialize};

/// Requests one module upload may make. 16 MiB chunks of the largest plan (4 GiB) are
/// 256; a module sending more, smaller parts is refused past this (429).
pub const MAX_PARTS: usize = 4096;

/// One request's bytes, at the offset it named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    pub offset: u64,
    pub bytes: u64,
    /// SHA-256 of the part's bytes; None while its hasher is still at work, or when the
    /// request was lost before its digest was taken (then the part cannot vouch for
    /// anything).
    pub sha256: Option<String>,
}

impl Part {
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.bytes)
    }
}

/// How the upload was made: by plain requests at offsets, or by the tus protocol, whose
/// client declared the whole length at creation and must PATCH at the server's offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    Put,
    Tus { length: u64 },
}

/// Everything the sink received under one module upload id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartTally {
    pub protocol: Protocol,
    /// Parts in arrival order (each at most once per request).
    pub parts: Vec<Part>,
    /// tus: every byte before this offset is committed; the next PATCH must name it.
    pub offset: u64,
    /// The first 64 bytes at offset 0, as lossy UTF-8: what arrived, for a corrupted
    /// upload's report.
    pub head: Option<String>,
    /// Requests refused for reaching past the upload's cap (the run's module size, or a
    /// tus upload's declared length), or past MAX_PARTS.
    pub refused: u64,
    /// The requests' arrival records on one axis (`timeline::combine`).
    pub timeline: Option<Timeline>,
    /// tus: HEAD requests, each a client asking where to resume.
    #[serde(default)]
    pub heads: u64,
    /// A request is being received (tus takes one PATCH at a time).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub busy: bool,
}

/// Why a part was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartRefused {
    /// tus: the PATCH did not name the server's offset (409).
    WrongOffset { expected: u64 },
    /// tus: another PATCH is still being received (409).
    Busy,
    /// The upload already has MAX_PARTS parts (429).
    TooMany,
}

impl PartTally {
    pub fn new(protocol: Protocol) -> PartTally {
        PartTally {
            protocol,
            parts: Vec::new(),
            offset: 0,
            head: None,
            refused: 0,
            timeline: None,
            heads: 0,
            busy: false,
        }
    }

    /// A request wants to add a part at `offset`: whether it may, under the protocol.
    pub fn begin(&mut self, offset: u64) -> Result<(), PartRefused> {
        if self.parts.len() >= MAX_PARTS {
            self.refused += 1;
            return Err(PartRefused::TooMany);
        }
        if let Protocol::Tus { .. } = self.protocol {
            if self.busy {
                return Err(PartRefused::Busy);
            }
            if offset != self.offset {
                return Err(PartRefused::WrongOffset {
                    expected: self.offset,
                });
            }
        }
        self.busy = true;
        Ok(())
    }

    /// The request's body ended (whole or not) after `bytes`: the part is committed now,
    /// so a HEAD sees the new offset at once; its digest follows (`digested`).
    pub fn commit(&mut self, offset: u64, bytes: u64, arrival: Option<Timeline>) {
        self.busy = false;
        if bytes == 0 {
            return;
        }
        self.parts.push(Part {
            offset,
            bytes,
            sha256: None,
        });
        if offset == self.offset {
            self.offset = self.offset.saturating_add(bytes);
        }
        if let Some(t) = arrival {
            let parts: Vec<_> = self.timeline.take().into_iter().chain([t]).collect();
            self.timeline = timeline::combine(&parts);
        }
    }

    /// The digest of the part committed at `offset` with `bytes`; `head` is its first
    /// bytes, kept when the part starts the upload.
    pub fn digested(&mut self, offset: u64, bytes: u64, sha256: String, head: String) {
        if let Some(p) = self
            .parts
            .iter_mut()
            .find(|p| p.offset == offset && p.bytes == bytes && p.sha256.is_none())
        {
            p.sha256 = Some(sha256);
            if offset == 0 && self.head.is_none() {
                self.head = Some(head);
            }
        }
    }

    /// A request was lost before its part was committed (the connection went away):
    /// the protocol may take the next one.
    pub fn abandon(&mut self) {
        self.busy = false;
    }

    /// A request carried more than the upload had room for: refused, and counted.
    pub fn overran(&mut self) {
        self.busy = false;
        self.refused += 1;
    }

    /// Parts whose digest has not arrived yet.
    pub fn pending(&self) -> usize {
        self.parts.iter().filter(|p| p.sha256.is_none()).count()
    }

    /// The parts laid out over `[0, size)`.
    pub fn assemble(&self, size: u64) -> Assembly {
        let mut spans: Vec<(u64, u64)> = self.parts.iter().map(|p| (p.offset, p.end())).collect();
        spans.sort_unstable();
        let mut covered = 0u64;
        let mut reach = 0u64;
        for (start, end) in spans {
            let (start, end) = (start.max(reach), end.min(size));
            if end > start {
                covered += end - start;
                reach = end;
            }
        }
        let received: u64 = self.parts.iter().map(|p| p.bytes).sum();
        let beyond = self
            .parts
            .iter()
            .map(|p| p.end().saturating_sub(p.offset.max(size)))
            .sum();
        Assembly {
            received,
            covered,
            beyond,
            size,
        }
    }
}

/// What the parts add up to against the size the module was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Assembly {
    /// Every byte of every part, sent twice or not.
    pub received: u64,
    /// Distinct offsets of `[0, size)` some part covers.
    pub covered: u64,
    /// Bytes at offsets past `size`.
    pub beyond: u64,
    pub size: u64,
}

impl Assembly {
    /// Every offset of `[0, size)` has a part, and no part reaches past it.
    pub fn whole(&self) -> bool {
        self.beyond == 0 && self.covered == self.size
    }

    /// Bytes sent more than once (retries, overlapping parts).
    pub fn resent(&self) -> u64 {
        self.received - self.covered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(parts: &[(u64, u64)]) -> PartTally {
        let mut t = PartTally::new(Protocol::Put);
        for &(offset, bytes) in parts {
            t.begin(offset).unwrap();
            t.commit(offset, bytes, None);
        }
        t
    }

    #[test]
    fn parts_in_any_order_reassemble_by_offset() {
        let t = put(&[(32, 16), (0, 16), (16, 16)]);
        let a = t.assemble(48);
        assert!(a.whole(), "{a:?}");
        assert_eq!((a.received, a.covered, a.resent()), (48, 48, 0));
    }

    #[test]
    fn a_gap_an_overlap_and_a_part_past_the_end_are_seen() {
        let gap = put(&[(0, 16), (32, 16)]).assemble(48);
        assert!(!gap.whole());
        assert_eq!(gap.covered, 32);
        let retried = put(&[(0, 10), (0, 16), (16, 32)]).assemble(48);
        assert!(
            retried.whole(),
            "a retried part covers what the cut one did"
        );
        assert_eq!(retried.resent(), 10);
        let past = put(&[(0, 48), (40, 16)]).assemble(48);
        assert!(!past.whole());
        assert_eq!(past.beyond, 8);
    }

    #[test]
    fn tus_takes_patches_only_at_its_offset_and_one_at_a_time() {
        let mut t = PartTally::new(Protocol::Tus { length: 30 });
        t.begin(0).unwrap();
        assert_eq!(t.begin(0), Err(PartRefused::Busy));
        t.commit(0, 7, None); // cut short after 7 bytes
        assert_eq!(t.offset, 7);
        assert_eq!(t.begin(10), Err(PartRefused::WrongOffset { expected: 7 }));
        t.begin(7).unwrap();
        t.commit(7, 23, None);
        assert_eq!(t.offset, 30);
        assert!(t.assemble(30).whole());
        assert_eq!(t.pending(), 2, "digests follow");
        t.digested(0, 7, "aa".into(), "head".into());
        t.digested(7, 23, "bb".into(), "later".into());
        assert_eq!(t.pending(), 0);
        assert_eq!(t.head.as_deref(), Some("head"));
    }

    #[test]
    fn parts_are_bounded() {
        let mut t = PartTally::new(Protocol::Put);
        for i in 0..MAX_PARTS as u64 {
            t.begin(i).unwrap();
            t.commit(i, 1, None);
        }
        assert_eq!(t.begin(0), Err(PartRefused::TooMany));
        assert_eq!(t.refused, 1);
    }
}
