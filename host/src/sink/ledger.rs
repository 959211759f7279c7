//! The sink's ledger: what it received under each upload id, kept for the run, so the
//! host builds every stored sample from its own record and never from the page's word.
//! One ledger serves every sink of a session (plain, h1-tls, h2).
//!
//! An id names one upload once: a second upload under it is refused (409), and a record
//! a sample has claimed stays as a tombstone until its run ends, so one received body
//! can never vouch for two samples.
//!
//! Records are kept only for runs that were opened first (`open_run`: by the host at
//! `run-started`, or on `unobserved sink` by a holder of its token over the ledger
//! route), each run within the room it was opened with, derived from its plan; a run
//! that ended is remembered as ended and takes nothing more. Opening a run when the
//! ledger has no room evicts the run idle longest, if one has been idle for `IDLE`, and
//! is refused otherwise: a run never loses the room it was given to a newer one while
//! it is in use.

use super::chunks::{ChunkReport, Order};
use crate::domain::limits::INPUT;
use crate::domain::run::valid_run_id;
use crate::domain::upload_id::{BadUploadId, UploadId};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Records held at once, tombstones included. A run of the largest plan claims its
/// records as its samples arrive and drops them when it ends; at the cap a new upload
/// id is refused (429) until a run ends, rather than an old record being forgotten.
pub const MAX_ENTRIES: usize = crate::domain::limits::INPUT.ledger_records;

/// A run with no upload or claim for this long may be evicted to make room for a new one.
pub const IDLE: std::time::Duration = std::time::Duration::from_secs(60);

/// What the sink says about a whole plain upload: its reply, which is also the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UploadReport {
    #[serde(flatten)]
    pub body: super::hashing::BodyReport,
    pub content_type: Option<String>,
    /// From the request's headers to its last byte.
    pub request_ms: f64,
    /// "h2" or "http/1.1", as ALPN names it.
    pub protocol: String,
}

/// An encrypted file's chunks as they arrived, folded as they come: bounded memory
/// however many chunks a client sends. On the wire (a remote sink's ledger route) the
/// running digest travels finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkTally {
    pub chunks: u64,
    pub tags_ok: u64,
    pub in_order: u64,
    pub plaintext_bytes: u64,
    /// SHA-256 over the chunks' plaintext digests (hex) in arrival order: the page's
    /// digest of digests when every chunk came in order.
    #[serde(rename = "digest_of_digests")]
    digests: DigestChain,
    /// The chunk PUTs' arrival records on one axis, folded as they come (bounded:
    /// `timeline::combine`).
    pub timeline: Option<crate::domain::timeline::Timeline>,
}

/// A running SHA-256, compared and shown (and serialised) by its digest so far.
#[derive(Clone, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
enum DigestChain {
    Running(ring::digest::Context),
    Finished(String),
}

impl DigestChain {
    fn hex(&self) -> String {
        match self {
            DigestChain::Running(c) => hex::encode(c.clone().finish()),
            DigestChain::Finished(h) => h.clone(),
        }
    }
}

impl From<DigestChain> for String {
    fn from(d: DigestChain) -> String {
        d.hex()
    }
}

impl From<String> for DigestChain {
    fn from(h: String) -> DigestChain {
        DigestChain::Finished(h)
    }
}

impl PartialEq for DigestChain {
    fn eq(&self, other: &Self) -> bool {
        self.hex() == other.hex()
    }
}

impl std::fmt::Debug for DigestChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DigestChain({})", self.hex())
    }
}

impl ChunkTally {
    fn new() -> ChunkTally {
        ChunkTally {
            chunks: 0,
            tags_ok: 0,
            in_order: 0,
            plaintext_bytes: 0,
            digests: DigestChain::Running(ring::digest::Context::new(&ring::digest::SHA256)),
            timeline: None,
        }
    }

    fn add(&mut self, r: &ChunkReport) {
        self.chunks += 1;
        self.tags_ok += u64::from(r.tag_ok);
        self.in_order += u64::from(r.order == Order::Ok);
        self.plaintext_bytes += r.plaintext_bytes;
        let digest = r.plaintext_sha256.as_deref().unwrap_or("");
        if let DigestChain::Running(c) = &mut self.digests {
            c.update(digest.as_bytes());
        }
        if let Some(t) = &r.timeline {
            let parts: Vec<_> = self
                .timeline
                .take()
                .into_iter()
                .chain([t.clone()])
                .collect();
            self.timeline = super::timeline::combine(&parts);
        }
    }

    pub fn digest_of_digests(&self) -> String {
        self.digests.hex()
    }
}

/// A download the sink served: what it was asked for and how much of it it handed on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DownloadRecord {
    pub seed: [u8; 16],
    pub bytes_asked: u64,
    pub bytes_sent: u64,
}

/// What the ledger holds under one id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Entry {
    /// Reserved when the request arrived; replaced when it ends.
    InFlight,
    Body(Box<UploadReport>),
    /// Ended early (aborted, cut off, over the cap) after `bytes`.
    Cut {
        bytes: u64,
    },
    Chunks(Box<ChunkTally>),
    Download(DownloadRecord),
    /// A workload module's upload: its requests as parts at their offsets.
    Parts(Box<super::parts::PartTally>),
    /// A sample claimed it: the id may not be used again in this run.
    Taken,
}

/// Why an upload's id was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The id already names an upload (409).
    Reused,
    /// The ledger is at MAX_ENTRIES, or has no room to open a run (429).
    Full,
    /// The run was not opened on this sink (403).
    NotOpen,
    /// The run ended: it takes nothing more (410).
    Ended,
    /// The run holds all the records it was opened with (429).
    RunFull,
}

impl Refused {
    pub fn status(self) -> u16 {
        match self {
            Refused::Reused => 409,
            Refused::Full | Refused::RunFull => 429,
            Refused::NotOpen => 403,
            Refused::Ended => 410,
        }
    }

    pub fn message(self, id: &UploadId) -> String {
        match self {
            Refused::Reused => format!("upload id {id} was already used; one id names one upload"),
            Refused::Full => format!(
                "the sink holds {MAX_ENTRIES} records, or has no room for another run, until a run ends"
            ),
            Refused::NotOpen => "the upload's run was not opened on this sink".into(),
            Refused::Ended => "the upload's run has ended; it takes nothing more".into(),
            Refused::RunFull => "the upload's run holds every record its plan allows".into(),
        }
    }

    /// Why a run could not be opened.
    pub fn of_opening(self) -> String {
        match self {
            Refused::Ended => "the run has ended; it cannot be opened again".into(),
            _ => format!(
                "the sink has no room for another run: its {MAX_ENTRIES} records are given to runs in use"
            ),
        }
    }
}

/// What a sample finds when it claims its upload id. A remote sink's ledger route
/// answers with one, as JSON.
// Found carries the whole record (its timeline too); a claim lives for one sample.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "claim", content = "entry", rename_all = "kebab-case")]
pub enum Claim {
    Found(Entry),
    /// The sink never received an upload under this id.
    Missing,
    /// The id names an upload of another run: left for that run.
    OtherRun,
    /// Another sample already claimed it.
    AlreadyTaken,
    /// The sink holding the record (a remote one) could not be asked.
    Unreachable,
}

/// Where `verify` finds the records: this process's ledger, or a remote sink's.
pub trait Records {
    fn take(&mut self, run_id: &str, upload: &UploadId) -> Claim;

    /// What `run_id`'s workload modules are given (`Ledger::expect_modules`): only the
    /// host's own ledger knows, since modules run on the local sink.
    fn modules(&self, _run_id: &str) -> Option<super::expected::ModuleRun> {
        None
    }
}

impl Records for &Ledger {
    fn take(&mut self, run_id: &str, upload: &UploadId) -> Claim {
        Ledger::take(self, run_id, upload)
    }

    fn modules(&self, run_id: &str) -> Option<super::expected::ModuleRun> {
        Ledger::modules(self, run_id)
    }
}

/// Which run and upload a request names: `?run=<run id>&upload=<upload id>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadTag {
    pub run_id: String,
    pub upload: UploadId,
}

impl UploadTag {
    pub fn new(run_id: &str, upload: &str) -> Result<UploadTag, String> {
        if !valid_run_id(run_id) {
            return Err("run id must be 1-64 letters, digits, '-' or '_'".into());
        }
        let upload = upload.parse().map_err(|e: BadUploadId| e.to_string())?;
        Ok(UploadTag {
            run_id: run_id.to_owned(),
            upload,
        })
    }

    /// From a request's query: None when it names no upload (a probe, a ceiling
    /// measurement, a sink used without a host), an error when it names one badly.
    pub fn of_query(path_and_query: &str) -> Result<Option<UploadTag>, String> {
        let param = |name| query_param(path_and_query, name);
        match (param("run"), param("upload")) {
            (None, None) => Ok(None),
            (Some(run), Some(upload)) => UploadTag::new(run, upload).map(Some),
            _ => Err("an upload names both its run and its id: ?run=<run id>&upload=<id>".into()),
        }
    }
}

/// The value of the query's first `name=` parameter, as sent (not decoded).
pub fn query_param<'a>(path_and_query: &'a str, name: &str) -> Option<&'a str> {
    let query = path_and_query.split_once('?').map_or("", |(_, q)| q);
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
}

struct Held {
    run_id: String,
    entry: Entry,
}

/// An open run's room: the records it may hold, those it holds, and when it last used
/// the ledger.
struct Book {
    cap: usize,
    held: usize,
    last: Instant,
}

/// The runs a ledger keeps records for, and the ones it remembers as ended (at most
/// `INPUT.ledger_ended_runs`, the oldest forgotten first; a forgotten one is simply not
/// open).
#[derive(Default)]
struct Runs {
    open: HashMap<String, Book>,
    ended: VecDeque<String>,
    ended_set: HashSet<String>,
}

impl Runs {
    fn end(&mut self, run_id: &str) {
        self.open.remove(run_id);
        if self.ended_set.insert(run_id.to_owned()) {
            self.ended.push_back(run_id.to_owned());
        }
        while self.ended.len() > INPUT.ledger_ended_runs {
            if let Some(old) = self.ended.pop_front() {
                self.ended_set.remove(&old);
            }
        }
    }

    /// The open run idle longest, if it has been idle for `idle`.
    fn idlest(&self, idle: Duration) -> Option<String> {
        let (run, book) = self.open.iter().min_by_key(|(_, b)| b.last)?;
        (book.last.elapsed() >= idle).then(|| run.clone())
    }
}

pub struct Ledger {
    entries: Mutex<HashMap<UploadId, Held>>,
    cap: usize,
    /// Locked after `entries` when both are held.
    runs: Mutex<Runs>,
    idle: Duration,
    /// Runs with workload modules, and the bytes each of their uploads is given
    /// (`modules.rs`): the module routes take uploads of these runs only.
    module_runs: Mutex<HashMap<String, super::expected::ModuleRun>>,
    /// Signalled when a part's digest arrives, for a claim waiting on it.
    digested: std::sync::Condvar,
}

impl Default for Ledger {
    fn default() -> Self {
        Ledger::with_cap(MAX_ENTRIES)
    }
}

impl Ledger {
    pub fn with_cap(cap: usize) -> Ledger {
        Ledger::with_limits(cap, IDLE)
    }

    /// A ledger of `cap` records that evicts runs idle for `idle` (tests shorten it).
    pub fn with_limits(cap: usize, idle: Duration) -> Ledger {
        Ledger {
            entries: Mutex::default(),
            cap,
            runs: Mutex::default(),
            idle,
            module_runs: Mutex::default(),
            digested: std::sync::Condvar::new(),
        }
    }

    /// Opens `run_id` with room for `wanted` records (its plan's uploads; at most
    /// `INPUT.ledger_records_per_run`): from now on the ledger keeps its records. Opening
    /// an open run again keeps its room (the larger of the two); an ended run cannot be
    /// opened again. Without room, the run idle longest (for `IDLE` at least) is ended to
    /// make some; a run in use is never evicted. The room given.
    pub fn open_run(&self, run_id: &str, wanted: usize) -> Result<usize, Refused> {
        let cap = wanted.clamp(1, INPUT.ledger_records_per_run.min(self.cap));
        let mut entries = self.entries.lock().unwrap();
        let mut runs = self.runs.lock().unwrap();
        if runs.ended_set.contains(run_id) {
            return Err(Refused::Ended);
        }
        if let Some(book) = runs.open.get_mut(run_id) {
            book.cap = book.cap.max(cap);
            book.last = Instant::now();
            return Ok(book.cap);
        }
        loop {
            let given: usize = runs.open.values().map(|b| b.cap).sum();
            if runs.open.len() < INPUT.ledger_runs && given + cap <= self.cap {
                break;
            }
            let Some(idlest) = runs.idlest(self.idle) else {
                return Err(Refused::Full);
            };
            log::warn!("the ledger ends run {idlest}, idle the longest, to open run {run_id}");
            entries.retain(|_, held| held.run_id != idlest);
            runs.end(&idlest);
        }
        let book = Book {
            cap,
            held: 0,
            last: Instant::now(),
        };
        runs.open.insert(run_id.to_owned(), book);
        Ok(cap)
    }

    /// Room for one more record of `run_id`, taken: it must be open and within its room,
    /// and the ledger within MAX_ENTRIES (`entries` is its record count).
    pub(crate) fn room(&self, entries: usize, run_id: &str) -> Result<(), Refused> {
        let mut runs = self.runs.lock().unwrap();
        if runs.ended_set.contains(run_id) {
            return Err(Refused::Ended);
        }
        let book = runs.open.get_mut(run_id).ok_or(Refused::NotOpen)?;
        if book.held >= book.cap {
            return Err(Refused::RunFull);
        }
        if entries >= self.cap {
            return Err(Refused::Full);
        }
        book.held += 1;
        book.last = Instant::now();
        Ok(())
    }

    /// `run_id` used the ledger now (a claim): not idle.
    fn touch(&self, run_id: &str) {
        if let Some(book) = self.runs.lock().unwrap().open.get_mut(run_id) {
            book.last = Instant::now();
        }
    }

    /// Claims `tag`'s id for an upload that is starting.
    pub fn reserve(&self, tag: &UploadTag) -> Result<(), Refused> {
        let mut entries = self.entries.lock().unwrap();
        if entries.contains_key(&tag.upload) {
            return Err(Refused::Reused);
        }
        self.room(entries.len(), &tag.run_id)?;
        let held = Held {
            run_id: tag.run_id.clone(),
            entry: Entry::InFlight,
        };
        entries.insert(tag.upload.clone(), held);
        Ok(())
    }

    /// What a reserved upload turned out to be.
    pub fn settle(&self, upload: &UploadId, entry: Entry) {
        let mut entries = self.entries.lock().unwrap();
        if let Some(held) = entries.get_mut(upload) {
            if held.entry == Entry::InFlight {
                held.entry = entry;
            }
        }
    }

    /// A chunk of an encrypted file is arriving: the file's id is either new or already
    /// the same run's chunks; anything else is a reuse.
    pub fn admit_chunk(&self, tag: &UploadTag) -> Result<(), Refused> {
        let mut entries = self.entries.lock().unwrap();
        match entries.get(&tag.upload) {
            Some(Held {
                run_id,
                entry: Entry::Chunks(_),
            }) if *run_id == tag.run_id => Ok(()),
            Some(_) => Err(Refused::Reused),
            None => {
                self.room(entries.len(), &tag.run_id)?;
                let held = Held {
                    run_id: tag.run_id.clone(),
                    entry: Entry::Chunks(Box::new(ChunkTally::new())),
                };
                entries.insert(tag.upload.clone(), held);
                Ok(())
            }
        }
    }

    /// A verified chunk of an admitted file.
    pub fn add_chunk(&self, upload: &UploadId, report: &ChunkReport) {
        let mut entries = self.entries.lock().unwrap();
        if let Some(Held {
            entry: Entry::Chunks(tally),
            ..
        }) = entries.get_mut(upload)
        {
            tally.add(report);
        }
    }

    /// Takes the record of `upload` for a sample of `run_id`: once. A module upload
    /// whose last parts are still being hashed is waited for, up to DIGEST_WAIT.
    pub fn take(&self, run_id: &str, upload: &UploadId) -> Claim {
        let entries = self.entries.lock().unwrap();
        let (mut entries, _) = self
            .digested
            .wait_timeout_while(entries, DIGEST_WAIT, |e| modules::hashing(e, upload))
            .unwrap();
        let Some(held) = entries.get_mut(upload) else {
            return Claim::Missing;
        };
        if held.run_id != run_id {
            return Claim::OtherRun;
        }
        self.touch(run_id);
        match std::mem::replace(&mut held.entry, Entry::Taken) {
            Entry::Taken => Claim::AlreadyTaken,
            entry => Claim::Found(entry),
        }
    }

    /// The run ended: its records and tombstones go, and the run is remembered as ended,
    /// so no upload under it is taken again.
    pub fn forget_run(&self, run_id: &str) {
        let mut entries = self.entries.lock().unwrap();
        entries.retain(|_, held| held.run_id != run_id);
        self.runs.lock().unwrap().end(run_id);
        self.module_runs.lock().unwrap().remove(run_id);
    }

    pub fn len(&self) -> usize {
        self.entries.lock().unwrap().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How long a claim waits for the digests of a module upload's last parts. Hashing a
/// part takes milliseconds; this bounds a part whose hasher never reports.
pub const DIGEST_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

mod modules;
pub use modules::ModuleRefused;

#[cfg(test)]
mod tests;
