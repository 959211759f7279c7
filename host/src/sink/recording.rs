//! How a request's handler writes to the ledger: the upload's id is reserved when the
//! request arrives, and whatever ends the request (its verdict, an abort, a dropped
//! connection) settles the record once.
// Each error here is the reply itself, sent at once: boxing it would only add an
// allocation.
#![allow(clippy::result_large_err)]

use super::ledger::{DownloadRecord, Entry, Ledger, UploadTag};
use super::Shared;
use crate::domain::upload_id::UploadId;
use std::sync::Arc;

/// A reserved upload not yet settled. Dropped unsettled, it records what was counted as
/// cut short: a request the client abandoned never reads as nothing at all.
pub struct Pending {
    ledger: Arc<Ledger>,
    id: UploadId,
    pub bytes: u64,
}

impl Pending {
    pub fn settle(self, entry: Entry) {
        self.ledger.settle(&self.id, entry);
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // A no-op once settled: the ledger replaces only an in-flight record.
        self.ledger
            .settle(&self.id, Entry::Cut { bytes: self.bytes });
    }
}

/// A refusal to answer instead: its status and message.
pub type Refusal = (u16, String);

/// Reserves the id a request's query names, if it names one; the refusal when it names
/// one badly (400), reuses one (409) or finds the ledger full (429).
pub fn reserve(shared: &Shared, path_and_query: &str) -> Result<Option<Pending>, Refusal> {
    let tag = UploadTag::of_query(path_and_query).map_err(|m| (400, m))?;
    let Some(tag) = tag else { return Ok(None) };
    shared
        .ledger
        .reserve(&tag)
        .map_err(|why| (why.status(), why.message(&tag.upload)))?;
    Ok(Some(Pending {
        ledger: shared.ledger.clone(),
        id: tag.upload,
        bytes: 0,
    }))
}

/// The run and file a chunk's path names, admitted to the ledger.
pub fn admit_chunk(shared: &Shared, run_id: &str, upload: &str) -> Result<UploadId, Refusal> {
    let tag = UploadTag::new(run_id, upload).map_err(|m| (400, m))?;
    shared
        .ledger
        .admit_chunk(&tag)
        .map_err(|why| (why.status(), why.message(&tag.upload)))?;
    Ok(tag.upload)
}

/// A download being served: what it was asked for, and how much of it the sink has
/// handed on so far. Recorded when its body ends or is dropped.
pub struct Serving {
    pending: Option<Pending>,
    pub record: DownloadRecord,
}

impl Serving {
    pub fn new(pending: Option<Pending>, seed: [u8; 16], bytes_asked: u64) -> Serving {
        Serving {
            pending,
            record: DownloadRecord {
                seed,
                bytes_asked,
                bytes_sent: 0,
            },
        }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        if let Some(p) = self.pending.take() {
            p.settle(Entry::Download(self.record.clone()));
        }
    }
}
