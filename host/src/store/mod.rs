//! The results store: one JSON object per line in `results.jsonl` in the state dir.
//!
//! Appends are whole batches written with one `write` under an exclusive file lock and
//! fsynced before the caller acknowledges anything, so two hosts never interleave and an
//! acknowledged record survives a crash. A torn or corrupt line is skipped on read with a
//! warning that names it; every other line is still read.

mod index;
pub mod records;
mod tail;

pub use index::DIR_NAME as INDEX_DIR_NAME;
pub use records::{ConditionsRecord, Parsed, Pick, Record, RunRecord, Runs, SampleHead};
pub use tail::{LineTail, StoreTail};

use crate::platform::state;
use crate::platform::untrusted::Clipped;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "results.jsonl";

#[derive(Debug, Clone)]
pub struct Store {
    path: PathBuf,
}

/// What a read found: the records with their 1-based line numbers, and a warning for
/// every line that had to be skipped.
#[derive(Debug, Default)]
pub struct StoreContents {
    pub records: Vec<(usize, Record)>,
    pub warnings: Vec<StoreWarning>,
}

/// A line the store could not read, typed; its words are `Display`'s, in
/// `export/findings.rs`, for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreWarning {
    pub path: PathBuf,
    /// 1-based.
    pub line: usize,
    pub kind: StoreWarningKind,
    /// What the reader or the parser said (clipped).
    pub error: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreWarningKind {
    /// The file could not be read on from this line: nothing after it was read.
    StoppedReading,
    /// The last line is incomplete: a write was torn (a crash mid-append).
    TornLastLine,
    /// A line before the last is not a record; every other line is read.
    CorruptLine,
    /// More lines skipped past the first `WARNINGS_NAMED`, counted, not named.
    MoreSkipped { lines: usize },
}

impl Store {
    pub fn in_dir(dir: &Path) -> Store {
        Store {
            path: dir.join(FILE_NAME),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends the records and fsyncs. On any error the file is cut back to where it
    /// was, so no partial record is left behind (e.g. on a full disk).
    pub fn append(&self, records: &[Record]) -> io::Result<()> {
        self.append_locking(records, File::lock)
    }

    /// `append`, waiting at most `wait` for the store's lock: `WouldBlock` when another
    /// process held it all that time (a native host whose browser was stopped mid-write
    /// holds it until it runs again, or dies).
    pub fn append_within(&self, records: &[Record], wait: std::time::Duration) -> io::Result<()> {
        let poll = std::time::Duration::from_millis(50);
        self.append_locking(records, |file| state::lock_within(file, wait, poll))
    }

    fn append_locking(
        &self,
        records: &[Record],
        lock: impl FnOnce(&File) -> io::Result<()>,
    ) -> io::Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        if let Some(dir) = self.path.parent() {
            state::ensure_private_dir(dir).map_err(io::Error::other)?;
        }
        let mut buf = Vec::new();
        for r in records {
            serde_json::to_writer(&mut buf, r)?;
            buf.push(b'\n');
        }
        let mut file = state::open_private_append(&self.path)?;
        if std::env::var_os(FULL_DISK_FAULT).is_some() {
            return Err(io::Error::from_raw_os_error(libc_enospc()));
        }
        lock(&file)?;
        let result = append_locked(&mut file, buf);
        if result.is_ok() {
            self.reindex(&mut file);
        }
        let _ = file.unlock();
        result
    }

    /// Brings the index up to the store's end, under the store's lock. A failure costs
    /// only time: a reader that cannot bring it up to date reads every line instead.
    fn reindex(&self, file: &mut File) {
        if let Err(e) = index::Index::beside(&self.path).catch_up(file) {
            log::warn!("could not index {}: {e}", self.path.display());
        }
    }

    pub fn read(&self) -> io::Result<StoreContents> {
        let mut out = StoreContents::default();
        out.warnings = self.scan(|number, r| out.records.push((number, r)))?;
        Ok(out)
    }

    /// Hands every record to `each` as it is read, with its line number, and returns
    /// the warnings: a big store is never held twice (as lines and as records).
    pub fn scan(&self, mut each: impl FnMut(usize, Record)) -> io::Result<Vec<StoreWarning>> {
        self.scan_picked(Pick::Records(Runs::All), |n, parsed| {
            if let Parsed::Record(r) = parsed {
                each(n, r)
            }
        })
    }

    /// `scan`, handing over only the records of one run: through the index, so the
    /// other runs' lines are not read at all (`scan_ids`).
    pub fn scan_run(
        &self,
        run_id: &str,
        mut each: impl FnMut(usize, Record),
    ) -> io::Result<Vec<StoreWarning>> {
        self.scan_ids(&[run_id], false, |n, parsed| {
            if let Parsed::Record(r) = parsed {
                each(n, r)
            }
        })
    }

    /// The lines of the runs `ids` names, run by run in that order, samples as their
    /// heads when `heads`: through the index (`index.rs`), brought up to date first, so
    /// no other run's line is read. When it cannot be (a state dir this process may not
    /// write, an id no file can be named by), one pass over every line instead, in the
    /// store's order.
    pub fn scan_ids(
        &self,
        ids: &[&str],
        heads: bool,
        mut each: impl FnMut(usize, Parsed),
    ) -> io::Result<Vec<StoreWarning>> {
        let Some((file, index)) = self.indexed(ids) else {
            let set: std::collections::HashSet<&str> = ids.iter().copied().collect();
            return self.scan_picked(pick(heads, Runs::Only(&|id| set.contains(id))), each);
        };
        let mut warnings = Vec::new();
        for id in ids {
            let wanted = |x: &str| x == *id;
            let entries = index.entries(id)?;
            let pick = pick(heads, Runs::Only(&wanted));
            warnings.extend(self.scan_entries(&file, &entries, pick, &mut each)?);
        }
        Ok(warnings)
    }

    /// The lines `entries` name, as `pick` wants them.
    fn scan_entries(
        &self,
        mut file: &File,
        entries: &[index::Entry],
        pick: Pick,
        mut each: impl FnMut(usize, Parsed),
    ) -> io::Result<Vec<StoreWarning>> {
        let mut warnings = Vec::new();
        for e in entries {
            file.seek(SeekFrom::Start(e.offset))?;
            let reader = BufReader::with_capacity(1 << 16, file.take(e.len));
            let from = (e.first_line as usize).saturating_sub(1);
            warnings.extend(scan_lines(reader, from, &self.path, pick, false, &mut each));
        }
        Ok(warnings)
    }

    /// The store, open and indexed to its end, and its index; None when it cannot be.
    fn indexed(&self, ids: &[&str]) -> Option<(File, index::Index)> {
        if !ids.iter().all(|id| crate::domain::run::valid_run_id(id)) {
            return None;
        }
        let mut file = state::open_private_read(&self.path).ok()?;
        let index = index::Index::beside(&self.path);
        let caught = file.lock().and_then(|_| index.catch_up(&mut file));
        let _ = file.unlock();
        match caught {
            Ok(_) => Some((file, index)),
            Err(e) => {
                log::warn!(
                    "could not index {}, reading all of it: {e}",
                    self.path.display()
                );
                None
            }
        }
    }

    /// `scan`, handing over the records of the runs `wanted` names only.
    pub fn scan_runs(
        &self,
        wanted: &dyn Fn(&str) -> bool,
        mut each: impl FnMut(usize, Record),
    ) -> io::Result<Vec<StoreWarning>> {
        self.scan_picked(Pick::Records(Runs::Only(wanted)), |n, parsed| {
            if let Parsed::Record(r) = parsed {
                each(n, r)
            }
        })
    }

    /// Every line as `pick` wants it, with its line number; the warnings.
    pub fn scan_picked(
        &self,
        pick: Pick,
        each: impl FnMut(usize, Parsed),
    ) -> io::Result<Vec<StoreWarning>> {
        match state::open_private_read(&self.path) {
            // Never past the file's length: a device in its place (say /dev/full, which
            // reads as endless zeros) must not make a reader spin.
            Ok(f) => {
                let len = f.metadata()?.len();
                let reader = BufReader::with_capacity(1 << 16, f.take(len));
                Ok(scan_lines(reader, 0, &self.path, pick, true, each))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    /// The runs that `which` picks whose start is stored and whose end is not, oldest
    /// first. Through the index: each run's first stretch (its start) is read, and only
    /// the runs `which` picks are read on; without it, every start and end line.
    pub fn open_runs(&self, which: &dyn Fn(&RunRecord) -> bool) -> io::Result<Vec<String>> {
        let Some((file, index)) = self.indexed(&[]) else {
            return self.open_runs_of_every_line(which);
        };
        let mut open = Vec::new();
        for id in index.run_ids()? {
            let entries = index.entries(&id)?;
            let (mut picked, mut ended) = (false, false);
            let only = |x: &str| x == id;
            let bounds = Pick::Bounds(Runs::Only(&only));
            self.scan_entries(&file, &entries[..entries.len().min(1)], bounds, |_, p| {
                picked |= matches!(p, Parsed::Record(Record::Run(r)) if which(&r))
            })?;
            if picked {
                self.scan_entries(&file, &entries, bounds, |_, p| {
                    ended |= matches!(p, Parsed::Record(Record::RunEnd { .. }))
                })?;
            }
            if picked && !ended {
                open.push((entries[0].offset, id));
            }
        }
        open.sort();
        Ok(open.into_iter().map(|(_, id)| id).collect())
    }

    fn open_runs_of_every_line(
        &self,
        which: &dyn Fn(&RunRecord) -> bool,
    ) -> io::Result<Vec<String>> {
        let (mut open, mut ended) = (Vec::new(), std::collections::HashSet::new());
        self.scan_picked(Pick::Bounds(Runs::All), |_, parsed| match parsed {
            Parsed::Record(Record::Run(r)) if which(&r) => open.push(r.run.run_id),
            Parsed::Record(Record::RunEnd { run_id, .. }) => {
                ended.insert(run_id);
            }
            _ => {}
        })?;
        open.retain(|id| !ended.contains(id));
        Ok(open)
    }

    /// The id of the run whose first line is the store's newest (`--run last`), from the
    /// index alone: no line is read. None when the index cannot say (it cannot be written,
    /// an entry is unreadable, or the store holds no run); the caller then reads the heads.
    pub fn newest_run_id(&self) -> Option<String> {
        let (_, index) = self.indexed(&[])?;
        let mut newest: Option<(u64, String)> = None;
        for id in index.run_ids().ok()? {
            let first = index.entries(&id).ok()?.first()?.first_line;
            if newest.as_ref().is_none_or(|(line, _)| first > *line) {
                newest = Some((first, id));
            }
        }
        newest.map(|(_, id)| id)
    }
}

/// Samples as their heads, or every line whole.
fn pick(heads: bool, runs: Runs) -> Pick {
    match heads {
        true => Pick::Heads(runs),
        false => Pick::Records(runs),
    }
}

fn append_locked(file: &mut File, mut buf: Vec<u8>) -> io::Result<()> {
    let start = file.seek(SeekFrom::End(0))?;
    // A crash mid-write can leave a last line without its newline. Start ours on a
    // fresh line so that torn line stays the only casualty.
    if start > 0 {
        file.seek(SeekFrom::Start(start - 1))?;
        let mut last = [0u8; 1];
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            buf.insert(0, b'\n');
        }
    }
    let written = file.write_all(&buf).and_then(|_| file.sync_data());
    if written.is_err() {
        let _ = file.set_len(start);
        let _ = file.sync_data();
    }
    written
}

/// Parses lines from `reader`, numbering them from `first_line + 1`.
pub fn parse_lines(reader: impl BufRead, first_line: usize, path: &Path) -> StoreContents {
    let mut out = StoreContents::default();
    out.warnings = scan_lines(
        reader,
        first_line,
        path,
        Pick::Records(Runs::All),
        true,
        |n, r| {
            if let Parsed::Record(r) = r {
                out.records.push((n, r))
            }
        },
    );
    out
}

/// Each record of `reader` to `each`; the skipped lines' warnings (also logged). Its
/// last line may be a torn write only when `ends_file` (it is read to the store's end).
fn scan_lines(
    reader: impl BufRead,
    first_line: usize,
    path: &Path,
    pick: Pick,
    ends_file: bool,
    mut each: impl FnMut(usize, Parsed),
) -> Vec<StoreWarning> {
    let (mut warnings, mut skipped) = (Vec::new(), 0);
    let mut lines = reader.split(b'\n').enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let number = first_line + i + 1;
        let is_last = ends_file && lines.peek().is_none();
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                warnings.push(StoreWarning {
                    path: path.to_owned(),
                    line: number,
                    kind: StoreWarningKind::StoppedReading,
                    error: e.to_string(),
                });
                break;
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match records::parse_picked(&line, pick) {
            Ok(Some(r)) => each(number, r),
            Ok(None) => {}
            Err(_) if warnings.len() >= WARNINGS_NAMED => skipped += 1,
            Err(e) => warnings.push(StoreWarning {
                path: path.to_owned(),
                line: number,
                kind: if is_last {
                    StoreWarningKind::TornLastLine
                } else {
                    StoreWarningKind::CorruptLine
                },
                error: Clipped(&e).to_string(),
            }),
        }
    }
    if skipped > 0 {
        warnings.push(StoreWarning {
            path: path.to_owned(),
            line: first_line,
            kind: StoreWarningKind::MoreSkipped { lines: skipped },
            error: String::new(),
        });
    }
    for w in &warnings {
        log::warn!("{w}");
    }
    warnings
}

/// Skipped lines named one by one, in the warnings and the log; past them, one warning
/// counts the rest (a store of a million corrupt lines wrote 204 MB to stderr and
/// rotated the log's history away).
pub const WARNINGS_NAMED: usize = 3;

#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
pub(crate) use tests as tests_support;

/// Why a write to the store failed, as error 10's `kind`: a full disk (or quota), a
/// store that may not be written, or anything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "kebab-case")]
pub enum StoreFault {
    DiskFull,
    NotWritable,
    Other,
}

impl StoreFault {
    pub fn of(e: &io::Error) -> StoreFault {
        match e.kind() {
            io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => StoreFault::DiskFull,
            io::ErrorKind::PermissionDenied
            | io::ErrorKind::ReadOnlyFilesystem
            | io::ErrorKind::IsADirectory => StoreFault::NotWritable,
            _ => StoreFault::Other,
        }
    }
}

/// A fault-injection seam for the tests: with this set, every append fails as on a full
/// disk (ENOSPC), after the file was opened and before anything is written. (The tests
/// used to point the store at /dev/full, which the store now refuses to follow.)
pub const FULL_DISK_FAULT: &str = "UNOBSERVED_FAULT_FULL_DISK";

fn libc_enospc() -> i32 {
    28 // ENOSPC on Linux, macOS and the BSDs
}
