//! `unobserved.log`, capped: past MAX_BYTES it moves to `unobserved.log.1` (replacing
//! the previous one) and a fresh file starts, so the log never takes more than twice
//! the cap however long a sink runs or whatever a peer sends it. It is written a whole
//! line at a time: rotation falls between lines, never inside one, and no line is
//! longer than the cap (so one line can never rotate the history away).

use crate::platform::state;
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

    /// Appends `line` (which ends in a newline) in one write, after rotating if it
    /// would not fit. A line longer than the cap is cut to it, still ending in one.
    pub fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        let cut;
        let line = match usize::try_from(self.max) {
            Ok(max) if line.len() > max => {
                cut = [floor_char_boundary(line, max.saturating_sub(1)), "\n"].concat();
                &cut
            }
            _ => line,
        };
        let len = line.len() as u64;
        if self.size + len > self.max {
            // Another process may share the file: rotate only if it really is full.
            self.size = self.file.metadata().map_or(self.size, |m| m.len());
            if self.size + len > self.max {
                self.rotate()?;
            }
        }
        // One write: O_APPEND keeps it whole beside other hosts' lines.
        self.file.write_all(line.as_bytes())?;
        self.size += len;
        Ok(())
    }
}

/// The longest start of `s` of at most `max` bytes that ends on a char boundary.
fn floor_char_boundary(s: &str, max: usize) -> &str {
    let end = (0..=max.min(s.len()))
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0);
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(path: &std::path::Path) -> Vec<String> {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        assert!(text.is_empty() || text.ends_with('\n'), "a torn last line");
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn the_log_moves_aside_at_its_cap_and_a_fresh_one_starts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("unobserved.log");
        let mut log = RotatingLog::open(path.clone(), 1000).unwrap();
        let line = format!("{}\n", "x".repeat(99));
        for _ in 0..25 {
            log.write_line(&line).unwrap();
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

    #[test]
    fn a_line_is_never_split_by_rotation_and_never_over_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("unobserved.log");
        let old = dir.path().join("unobserved.log.1");
        let mut log = RotatingLog::open(path.clone(), 1000).unwrap();
        let short = format!("{}\n", "s".repeat(299));
        for _ in 0..3 {
            log.write_line(&short).unwrap();
        }
        // 900 bytes in: the next line does not fit, so it starts a fresh file whole.
        let middle = format!("{}\n", "m".repeat(199));
        log.write_line(&middle).unwrap();
        assert_eq!(lines_of(&old).len(), 3);
        assert_eq!(lines_of(&path), [&middle[..199]]);
        // Longer than the cap, in two-byte chars: cut to the cap on a char boundary.
        log.write_line(&format!("{}\n", "\u{85}".repeat(3000)))
            .unwrap();
        let huge = lines_of(&path);
        assert_eq!(huge.len(), 1, "the long line rotated the middle one out");
        assert!(
            huge[0].len() < 1000 && huge[0].len() > 990,
            "{}",
            huge[0].len()
        );
        assert!(huge[0].chars().all(|c| c == '\u{85}'));
        assert_eq!(
            lines_of(&old),
            [&middle[..199]],
            "one rotation, not a storm"
        );
        for file in [&path, &old] {
            assert!(std::fs::metadata(file).unwrap().len() <= 1000);
        }
    }
}
