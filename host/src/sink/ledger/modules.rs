//! The ledger's side of workload-module uploads: a run registers that it has modules and
//! how many bytes one of their uploads may carry; each request then adds a part at its
//! offset (`parts.rs`), by plain PUTs or by the tus protocol.

use super::super::expected::ModuleRun;
use super::super::parts::{PartRefused, PartTally, Protocol};
use super::{Entry, Held, Ledger, UploadId, UploadTag};
use crate::domain::timeline::Timeline;
use std::collections::HashMap;

/// Why a module upload's request was refused, each with its HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleRefused {
    /// The run registered no modules: the module routes are not for it (409).
    NotAModuleRun,
    /// The id names an upload of another kind or run (409).
    Reused,
    /// The ledger is full (429).
    Full,
    /// tus: no upload was created under this id (404).
    Unknown,
    /// tus: the PATCH did not name the upload's offset (409).
    WrongOffset { expected: u64 },
    /// tus: another PATCH of this upload is still being received (409).
    Busy,
    /// The upload already has its most parts (429).
    TooManyParts,
    /// The request starts at or past the most bytes the upload may carry (413).
    OverCap { cap: u64 },
    /// The ledger's own refusal: the run is not open, ended or full (`super::Refused`).
    Run(super::Refused),
}

impl ModuleRefused {
    pub fn status(self) -> u16 {
        match self {
            ModuleRefused::Unknown => 404,
            ModuleRefused::Full | ModuleRefused::TooManyParts => 429,
            ModuleRefused::OverCap { .. } => 413,
            ModuleRefused::Run(why) => why.status(),
            _ => 409,
        }
    }

    pub fn message(self, id: &UploadId) -> String {
        match self {
            ModuleRefused::NotAModuleRun => "this run has no workload modules".into(),
            ModuleRefused::Reused => format!("upload id {id} names another upload"),
            ModuleRefused::Full => super::Refused::Full.message(id),
            ModuleRefused::Unknown => format!("no upload was created under {id}"),
            ModuleRefused::WrongOffset { expected } => {
                format!("the upload's offset is {expected}")
            }
            ModuleRefused::Busy => "another PATCH of this upload is in progress".into(),
            ModuleRefused::TooManyParts => format!(
                "upload {id} already has {} parts",
                super::super::parts::MAX_PARTS
            ),
            ModuleRefused::OverCap { cap } => {
                format!("the upload may carry at most {cap} bytes")
            }
            ModuleRefused::Run(why) => why.message(id),
        }
    }
}

impl From<super::Refused> for ModuleRefused {
    fn from(why: super::Refused) -> ModuleRefused {
        match why {
            super::Refused::Reused => ModuleRefused::Reused,
            other => ModuleRefused::Run(other),
        }
    }
}

impl From<PartRefused> for ModuleRefused {
    fn from(why: PartRefused) -> ModuleRefused {
        match why {
            PartRefused::WrongOffset { expected } => ModuleRefused::WrongOffset { expected },
            PartRefused::Busy => ModuleRefused::Busy,
            PartRefused::TooMany => ModuleRefused::TooManyParts,
        }
    }
}

/// A module upload of `upload` whose parts are not all hashed yet.
pub(super) fn hashing(entries: &mut HashMap<UploadId, Held>, upload: &UploadId) -> bool {
    matches!(
        entries.get(upload),
        Some(Held { entry: Entry::Parts(t), .. }) if t.pending() > 0
    )
}

impl Ledger {
    /// A run with workload modules starts: each of its module uploads is given the
    /// bytes `run` describes, and may carry no more. Forgotten with the run.
    pub fn expect_modules(&self, run_id: &str, run: ModuleRun) {
        let mut runs = self.module_runs.lock().unwrap();
        runs.insert(run_id.to_owned(), run);
    }

    /// What `run_id`'s modules are given, if it has modules.
    pub fn modules(&self, run_id: &str) -> Option<ModuleRun> {
        self.module_runs.lock().unwrap().get(run_id).cloned()
    }

    fn module_cap(&self, run_id: &str) -> Result<u64, ModuleRefused> {
        let run = self.modules(run_id).ok_or(ModuleRefused::NotAModuleRun)?;
        Ok(run.bytes)
    }

    /// The record of `tag`'s upload, made with `new` when there is none yet.
    fn with_parts<T>(
        &self,
        tag: &UploadTag,
        new: Option<Protocol>,
        f: impl FnOnce(&mut PartTally) -> Result<T, ModuleRefused>,
    ) -> Result<T, ModuleRefused> {
        let mut entries = self.entries.lock().unwrap();
        if !entries.contains_key(&tag.upload) {
            let protocol = new.ok_or(ModuleRefused::Unknown)?;
            self.room(entries.len(), &tag.run_id)?;
            let held = Held {
                run_id: tag.run_id.clone(),
                entry: Entry::Parts(Box::new(PartTally::new(protocol))),
            };
            entries.insert(tag.upload.clone(), held);
        }
        match entries.get_mut(&tag.upload) {
            Some(Held {
                run_id,
                entry: Entry::Parts(tally),
            }) if *run_id == tag.run_id => f(tally),
            _ => Err(ModuleRefused::Reused),
        }
    }

    /// A plain request for the part of `tag`'s upload at `offset` is arriving: the most
    /// bytes it may carry.
    pub fn begin_part(&self, tag: &UploadTag, offset: u64) -> Result<u64, ModuleRefused> {
        let cap = self.module_cap(&tag.run_id)?;
        if offset >= cap {
            return Err(ModuleRefused::OverCap { cap });
        }
        self.with_parts(tag, Some(Protocol::Put), |t| match t.protocol {
            Protocol::Put => Ok(t.begin(offset).map(|()| cap - offset)?),
            Protocol::Tus { .. } => Err(ModuleRefused::Reused),
        })
    }

    /// tus creation: an upload of `length` bytes under `tag`'s id.
    pub fn create_tus(&self, tag: &UploadTag, length: u64) -> Result<(), ModuleRefused> {
        let cap = self.module_cap(&tag.run_id)?;
        if length > cap {
            return Err(ModuleRefused::OverCap { cap });
        }
        let mut entries = self.entries.lock().unwrap();
        if entries.contains_key(&tag.upload) {
            return Err(ModuleRefused::Reused);
        }
        self.room(entries.len(), &tag.run_id)?;
        let tally = PartTally::new(Protocol::Tus { length });
        let held = Held {
            run_id: tag.run_id.clone(),
            entry: Entry::Parts(Box::new(tally)),
        };
        entries.insert(tag.upload.clone(), held);
        Ok(())
    }

    /// tus HEAD: the upload's offset and length.
    pub fn tus_state(&self, tag: &UploadTag) -> Result<(u64, u64), ModuleRefused> {
        self.with_parts(tag, None, |t| match t.protocol {
            Protocol::Tus { length } => {
                t.heads += 1;
                Ok((t.offset, length))
            }
            Protocol::Put => Err(ModuleRefused::Unknown),
        })
    }

    /// tus PATCH at `offset`: the most bytes it may carry.
    pub fn begin_patch(&self, tag: &UploadTag, offset: u64) -> Result<u64, ModuleRefused> {
        self.with_parts(tag, None, |t| match t.protocol {
            Protocol::Tus { length } => {
                t.begin(offset)?;
                Ok(length - offset)
            }
            Protocol::Put => Err(ModuleRefused::Unknown),
        })
    }

    fn parts_of(&self, upload: &UploadId, f: impl FnOnce(&mut PartTally)) {
        let mut entries = self.entries.lock().unwrap();
        if let Some(Held {
            entry: Entry::Parts(tally),
            ..
        }) = entries.get_mut(upload)
        {
            f(tally);
        }
    }

    /// A part's body ended after `bytes` (whole or not): committed, its digest to follow.
    /// The tus offset after it.
    pub fn commit_part(
        &self,
        upload: &UploadId,
        offset: u64,
        bytes: u64,
        arrival: Option<Timeline>,
    ) -> u64 {
        let mut after = 0;
        self.parts_of(upload, |t| {
            t.commit(offset, bytes, arrival);
            after = t.offset;
        });
        after
    }

    /// The digest of a committed part.
    pub fn part_digested(
        &self,
        upload: &UploadId,
        (offset, bytes): (u64, u64),
        sha256: String,
        head: String,
    ) {
        self.parts_of(upload, |t| t.digested(offset, bytes, sha256, head));
        self.digested.notify_all();
    }

    /// A part's request carried more than its room: refused, and counted against it.
    pub fn overran_part(&self, upload: &UploadId) {
        self.parts_of(upload, PartTally::overran);
    }

    /// A part's request was lost before anything was committed.
    pub fn abandon_part(&self, upload: &UploadId) {
        self.parts_of(upload, PartTally::abandon);
    }
}
