//! `unobserved.log`, capped: past MAX_BYTES it moves to `unobserved.log.1` (replacing
//! the previous one) and a fresh file starts, so the log never takes more than twice
//! the cap however long a sink runs or whatever a peer sends it.

use crate::state;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

pub const MAX_BYTES: u64 = 8 << 20;

pub struct RotatingLog {
    path: PathBuf,
    file: File,
    size: u64,
    max: u64,
}

impl RotatingLog {
    pub fn open(path: PathBuf, max: u64) -> std::io::Result<RotatingLog> {
        let file = state::open_private_append(&path)?;
        let size = file.metadata()?.len();
        let mut log = RotatingLog {
            path,
            file,
            size,
            max,
        };
        if log.size >= max {
            log.rotate()?;
        }
        Ok(log)
    }

    fn rotate(&mut self) -> std::io::Result<()> {
        let mut old = self.path.clone().into_os_string();
        old.push(".1");
        std::fs::rename(&self.path, &old)?;
        self.file = state::open_private_append(&self.path)?;
        self.size = 0;
        Ok(())
    }
}

impl Write for RotatingLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.size + buf.len() as u64 > self.max {
            // Another process may share the file: rotate only if it really is full.
            self.size = self.file.metadata().map_or(self.size, |m| m.len());
            if self.size + buf.len() as u64 > self.max {
                self.rotate()?;
            }
        }
        let n = self.file.write(buf)?;
        self.size += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_moves_aside_at_its_cap_and_a_fresh_one_starts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("unobserved.log");
        let mut log = RotatingLog::open(path.clone(), 1000).unwrap();
        for _ in 0..25 {
            log.write_all(&[b'x'; 99]).unwrap();
            log.write_all(b"\n").unwrap();
        }
        let now = std::fs::metadata(&path).unwrap().len();
        let old = std::fs::metadata(dir.path().join("unobserved.log.1"))
            .unwrap()
            .len();
        assert!(now <= 1000 && old <= 1000, "{now} + {old}");
        assert_eq!((now + old) % 100, 0, "whole lines only");
        // A log already over the cap is moved aside when opened.
        std::fs::write(&path, vec![b'y'; 5000]).unwrap();
        drop(RotatingLog::open(path.clone(), 1000).unwrap());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
    }
}
