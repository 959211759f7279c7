//! Where each run's lines are in `results.jsonl`, so that one run is read without
//! scanning the others: `results.index/` beside the store holds, per run id, a file of
//! fixed-size entries (the byte range and first line number of a stretch of that run's
//! lines), and `covered`, how much of the store the entries describe and a fingerprint
//! of it.
//!
//! The store stays the one record: the index is derived from it, written after the
//! store under the store's lock, and never trusted past what its fingerprint vouches for.
//! A store with no index (one written by an older version), or one replaced or cut
//! short, is indexed again from its first line; whatever was appended past `covered`
//! (say by a process killed between its two writes) is indexed on the next look.

use super::records;
use crate::platform::state;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

pub const DIR_NAME: &str = "results.index";
const COVERED: &str = "covered";
const RUNS: &str = "runs";

/// A stretch of one run's lines: `len` bytes from `offset`, the first of them line
/// `first_line` (1-based) of the store, each ending in a newline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub offset: u64,
    pub len: u64,
    pub first_line: u64,
}

const ENTRY_BYTES: usize = 24;

/// How much of the store the entries describe: its first `bytes` (`lines` lines), in
/// the file `inode`, whose first and last few KiB hash to `fingerprint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Covered {
    pub bytes: u64,
    pub lines: u64,
    inode: u64,
    fingerprint: u64,
}

const COVERED_BYTES: usize = 32;
/// How much of the store's start and of the end of what is covered the fingerprint
/// reads: a store replaced or rewritten in place no longer matches.
const FINGERPRINT_SPAN: u64 = 4096;

pub struct Index {
    dir: PathBuf,
}

impl Index {
    pub fn beside(store: &Path) -> Index {
        let dir = store.parent().unwrap_or(Path::new(".")).join(DIR_NAME);
        Index { dir }
    }

    /// Indexes whatever of `store` (open, and locked by the caller) is not yet: from
    /// where the index ends if it still describes this file, else from the start.
    /// Returns what is covered now.
    pub fn catch_up(&self, store: &mut File) -> io::Result<Covered> {
        let len = store.metadata()?.len();
        let from = match self.covered()? {
            Some(c) if c.bytes <= len && c == fingerprint(store, c.bytes, c.lines)? => c,
            _ => self.clear()?,
        };
        if from.bytes == len {
            return Ok(from);
        }
        let (entries, to) = index_lines(store, from, len)?;
        self.write(&entries)?;
        let covered = fingerprint(store, to.bytes, to.lines)?;
        self.write_covered(covered)?;
        Ok(covered)
    }

    /// The entries of `run_id`, in the order they were written, each once.
    pub fn entries(&self, run_id: &str) -> io::Result<Vec<Entry>> {
        let path = self.dir.join(RUNS).join(run_id);
        let mut raw = Vec::new();
        match state::open_private_read(&path) {
            Ok(f) => {
                let len = f.metadata()?.len();
                f.take(len).read_to_end(&mut raw)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        }
        // A torn last entry is left out; one written again after a crash is read once.
        let mut all: Vec<Entry> = raw.chunks_exact(ENTRY_BYTES).map(entry_of).collect();
        all.sort_by_key(|e| e.offset);
        let mut out: Vec<Entry> = Vec::new();
        for e in all {
            match out.last_mut() {
                Some(l) if e.offset < l.offset + l.len => {
                    l.len = (l.offset + l.len).max(e.offset + e.len) - l.offset
                }
                _ => out.push(e),
            }
        }
        Ok(out)
    }

    /// Every run id the index has entries for, in no order.
    pub fn run_ids(&self) -> io::Result<Vec<String>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(self.dir.join(RUNS))? {
            if let Some(name) = e?.file_name().to_str() {
                out.push(name.to_owned());
            }
        }
        Ok(out)
    }

    fn covered(&self) -> io::Result<Option<Covered>> {
        let mut raw = [0u8; COVERED_BYTES];
        match state::open_private_read(&self.dir.join(COVERED)) {
            Ok(mut f) => match f.read_exact(&mut raw) {
                Ok(()) => Ok(Some(covered_of(&raw))),
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
                Err(e) => Err(e),
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// An empty index: nothing covered.
    fn clear(&self) -> io::Result<Covered> {
        match std::fs::symlink_metadata(&self.dir) {
            Ok(_) => std::fs::remove_dir_all(&self.dir)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        for dir in [self.dir.clone(), self.dir.join(RUNS)] {
            state::ensure_private_dir(&dir).map_err(io::Error::other)?;
        }
        Ok(Covered::default())
    }

    /// Appends each run's entries to its file, durably, before `covered` moves on: an
    /// entry may be written twice (it is read once), never lost.
    fn write(&self, entries: &[(String, Entry)]) -> io::Result<()> {
        let runs = self.dir.join(RUNS);
        let mut by_run: std::collections::BTreeMap<&str, Vec<u8>> = Default::default();
        for (run, e) in entries {
            let buf = by_run.entry(run).or_default();
            for v in [e.offset, e.len, e.first_line] {
                buf.extend_from_slice(&v.to_le_bytes());
            }
        }
        for (run, buf) in by_run {
            let mut f = state::open_private_append(&runs.join(run))?;
            f.write_all(&buf)?;
            f.sync_data()?;
        }
        Ok(())
    }

    fn write_covered(&self, c: Covered) -> io::Result<()> {
        let mut raw = Vec::with_capacity(COVERED_BYTES);
        for v in [c.bytes, c.lines, c.inode, c.fingerprint] {
            raw.extend_from_slice(&v.to_le_bytes());
        }
        let fresh = self.dir.join(format!("{COVERED}.new"));
        let _ = std::fs::remove_file(&fresh);
        let mut f = state::open_no_follow(&fresh, OpenOptions::new().write(true).create_new(true))?;
        f.write_all(&raw)?;
        f.sync_data()?;
        std::fs::rename(&fresh, self.dir.join(COVERED))
    }
}

fn entry_of(raw: &[u8]) -> Entry {
    let v = |i: usize| u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
    Entry {
        offset: v(0),
        len: v(1),
        first_line: v(2),
    }
}

fn covered_of(raw: &[u8; COVERED_BYTES]) -> Covered {
    let v = |i: usize| u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
    Covered {
        bytes: v(0),
        lines: v(1),
        inode: v(2),
        fingerprint: v(3),
    }
}

/// What `Covered` the first `bytes` of `store` (`lines` lines) make.
fn fingerprint(store: &mut File, bytes: u64, lines: u64) -> io::Result<Covered> {
    let mut hash = Fnv::default();
    let head = bytes.min(FINGERPRINT_SPAN);
    let tail_from = bytes.saturating_sub(FINGERPRINT_SPAN).max(head);
    for (from, to) in [(0, head), (tail_from, bytes)] {
        let mut buf = vec![0; (to - from) as usize];
        store.seek(SeekFrom::Start(from))?;
        store.read_exact(&mut buf)?;
        hash.add(&buf);
    }
    Ok(Covered {
        bytes,
        lines,
        inode: inode(store)?,
        fingerprint: hash.0,
    })
}

#[cfg(unix)]
fn inode(f: &File) -> io::Result<u64> {
    use std::os::unix::fs::MetadataExt;
    Ok(f.metadata()?.ino())
}

#[cfg(not(unix))]
fn inode(_: &File) -> io::Result<u64> {
    Ok(0)
}

/// FNV-1a, 64 bits: a fingerprint, not a defence (whoever can write the store can
/// write its index).
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The entries of the complete lines of `store` from `from` to `len`: consecutive lines
/// of one run make one entry. A line of no run (a sink event), an unreadable one, or one
/// whose run id could not name a file, is counted and not indexed.
fn index_lines(
    store: &mut File,
    from: Covered,
    len: u64,
) -> io::Result<(Vec<(String, Entry)>, Covered)> {
    store.seek(SeekFrom::Start(from.bytes))?;
    let mut reader = BufReader::with_capacity(1 << 16, (&*store).take(len - from.bytes));
    let (mut at, mut line) = (from.bytes, from.lines);
    let mut entries: Vec<(String, Entry)> = Vec::new();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)? as u64;
        if n == 0 || buf.last() != Some(&b'\n') {
            break; // the end, or a line still being written: not covered yet
        }
        line += 1;
        if let Some(run) = run_of(&buf) {
            match entries.last_mut() {
                Some((last, e)) if *last == run && e.offset + e.len == at => e.len += n,
                _ => entries.push((
                    run,
                    Entry {
                        offset: at,
                        len: n,
                        first_line: line,
                    },
                )),
            }
        }
        at += n;
    }
    Ok((
        entries,
        Covered {
            bytes: at,
            lines: line,
            ..from
        },
    ))
}

/// The run id of a stored line, when it has one that can name a file.
fn run_of(line: &[u8]) -> Option<String> {
    let id = records::run_id_of(line)?;
    crate::domain::run::valid_run_id(&id).then_some(id)
}
