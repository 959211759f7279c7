//! Follows a growing file from where it ended, for `unobserved run`'s live progress:
//! the store's records, and the host log's store failures.

use super::{parse_lines, Record};

use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Complete new lines of a file since the last call. A line still being written is left
/// for the next call, and nothing past the file's length is read: a device in its place
/// (say /dev/full, which reads as endless zeros) must not make a reader spin.
pub struct LineTail {
    path: PathBuf,
    offset: u64,
}

impl LineTail {
    /// Starts at the current end of the file, so only what is written later is seen.
    pub fn from_end(path: PathBuf) -> LineTail {
        let offset = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        LineTail { path, offset }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// New complete lines, newline-terminated; empty when there are none yet.
    pub fn poll(&mut self) -> io::Result<Vec<u8>> {
        let mut file = match crate::platform::state::open_private_read(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let len = file.metadata()?.len();
        if len <= self.offset {
            return Ok(Vec::new());
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut fresh = Vec::new();
        file.take(len - self.offset).read_to_end(&mut fresh)?;
        let complete = fresh
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |end| end + 1);
        fresh.truncate(complete);
        self.offset += complete as u64;
        Ok(fresh)
    }
}

/// The store's new records.
pub struct StoreTail {
    lines: LineTail,
    line: usize,
}

impl StoreTail {
    /// Starts at the current end of the file, so only new records are seen.
    pub fn from_end(path: PathBuf) -> StoreTail {
        StoreTail {
            lines: LineTail::from_end(path),
            line: 0,
        }
    }

    pub fn poll(&mut self) -> io::Result<Vec<Record>> {
        let complete = self.lines.poll()?;
        if complete.is_empty() {
            return Ok(Vec::new());
        }
        let parsed = parse_lines(
            &complete[..complete.len() - 1],
            self.line,
            self.lines.path(),
        );
        self.line += complete.iter().filter(|&&b| b == b'\n').count();
        Ok(parsed.records.into_iter().map(|(_, r)| r).collect())
    }
}
