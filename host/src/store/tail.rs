//! Follows the store as it grows, for `unobserved run`'s live progress.

use super::{parse_lines, Record};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;

pub struct StoreTail {
    path: PathBuf,
    offset: u64,
    line: usize,
}

impl StoreTail {
    /// Starts at the current end of the file, so only new records are seen.
    pub fn from_end(path: PathBuf) -> StoreTail {
        let offset = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        StoreTail { path, offset, line: 0 }
    }

    /// New complete lines since the last call. A line still being written is left for
    /// the next call.
    pub fn poll(&mut self) -> io::Result<Vec<Record>> {
        let mut file = match File::open(&self.path) {
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
        let Some(end) = fresh.iter().rposition(|&b| b == b'\n') else { return Ok(Vec::new()) };
        let complete = &fresh[..=end];
        self.offset += complete.len() as u64;
        let parsed = parse_lines(&complete[..complete.len() - 1], self.line, &self.path);
        self.line += complete.iter().filter(|&&b| b == b'\n').count();
        Ok(parsed.records.into_iter().map(|(_, r)| r).collect())
    }
}
