//! Linux's view of the machine, read from /proc: CPU time in clock ticks for the whole
//! machine and for a set of process trees, and the pressure-stall totals (PSI).

use std::collections::{HashMap, HashSet};

/// The machine's CPU time so far, in clock ticks (`/proc/stat`'s first line).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MachineTicks {
    /// user + nice + system: time tasks ran (guest time is inside user and nice).
    /// Interrupts are left out: the kernel charges them to no task, and much of them is
    /// this run's own loopback traffic.
    pub busy: u64,
    pub steal: u64,
}

/// `/proc/stat`'s `cpu` line.
pub fn parse_stat(text: &str) -> Option<MachineTicks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let f: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    let at = |i: usize| f.get(i).copied().unwrap_or(0);
    Some(MachineTicks {
        busy: at(0) + at(1) + at(2),
        steal: at(7),
    })
}

/// One process as `/proc/<pid>/stat` shows it: its parent, and the CPU it and its
/// reaped children used, in clock ticks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProcessTicks {
    pub pid: u32,
    pub ppid: u32,
    pub ticks: u64,
}

/// `/proc/<pid>/stat`: the command name sits in parentheses and may hold spaces, so
/// the fields are counted from the last `)`.
pub fn parse_process(text: &str) -> Option<ProcessTicks> {
    let (head, tail) = text.rsplit_once(')')?;
    let pid = head.split_whitespace().next()?.parse().ok()?;
    let f: Vec<&str> = tail.split_whitespace().collect();
    // After the name: state, ppid, ... utime is field 14 of the line, so index 11 here.
    let num = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok());
    Some(ProcessTicks {
        pid,
        ppid: num(1)? as u32,
        ticks: num(11)? + num(12)? + num(13)? + num(14)?,
    })
}

/// Every process now.
pub fn processes() -> Vec<ProcessTicks> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let name = e.ok()?.file_name();
        let pid: u32 = name.to_str()?.parse().ok()?;
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        parse_process(&text)
    })
    .collect()
}

/// The CPU of the trees rooted at `roots` (each process once, however many roots it
/// descends from). A child that ended and was reaped inside a tree is in its parent's
/// figure, so the sum only grows.
pub fn tree_ticks(all: &[ProcessTicks], roots: &[u32]) -> u64 {
    let mut children: HashMap<u32, Vec<&ProcessTicks>> = HashMap::new();
    for p in all {
        children.entry(p.ppid).or_default().push(p);
    }
    let by_pid: HashMap<u32, &ProcessTicks> = all.iter().map(|p| (p.pid, p)).collect();
    let mut seen = HashSet::new();
    let mut stack: Vec<&ProcessTicks> = roots
        .iter()
        .filter_map(|r| by_pid.get(r).copied())
        .collect();
    let mut sum = 0;
    while let Some(p) = stack.pop() {
        if !seen.insert(p.pid) {
            continue;
        }
        sum += p.ticks;
        stack.extend(children.get(&p.pid).into_iter().flatten().copied());
    }
    sum
}

/// A PSI file's `some` total, in microseconds of stall so far.
pub fn parse_pressure_some(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("some "))?;
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix("total="))?
        .parse()
        .ok()
}

/// The three PSI totals (cpu, io, memory), each None where the kernel has no PSI.
pub fn pressures() -> [Option<u64>; 3] {
    ["cpu", "io", "memory"].map(|what| {
        std::fs::read_to_string(format!("/proc/pressure/{what}"))
            .ok()
            .and_then(|t| parse_pressure_some(&t))
    })
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`, 100 on every Linux in practice).
pub fn ticks_per_second() -> f64 {
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// The executable a process runs, for telling which of its ancestors are ours.
pub fn exe_of(pid: u32) -> Option<std::path::PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/exe")).ok()
}

/// A process's parent.
pub fn parent_of(pid: u32) -> Option<u32> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(parse_process(&text)?.ppid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_parse() {
        let t = parse_stat("cpu  73834 7 22894 64041 1570 3 215 167 0 0\ncpu0 1 2 3\n").unwrap();
        assert_eq!(
            t,
            MachineTicks {
                busy: 73834 + 7 + 22894,
                steal: 167
            }
        );
        let p = parse_process(
            "4242 (Web Content (x)) S 17 4242 4242 0 -1 4194560 1 2 3 4 50 60 7 8 20 0",
        )
        .unwrap();
        assert_eq!(
            p,
            ProcessTicks {
                pid: 4242,
                ppid: 17,
                ticks: 50 + 60 + 7 + 8
            }
        );
        assert_eq!(
            parse_pressure_some(
                "some avg10=0.08 avg60=6.03 avg300=12.43 total=98029173\nfull avg10=0 total=0\n"
            ),
            Some(98029173)
        );
    }

    #[test]
    fn trees_count_each_process_once() {
        let p = |pid, ppid, ticks| ProcessTicks { pid, ppid, ticks };
        let all = [
            p(1, 0, 1000),
            p(10, 1, 5),
            p(11, 10, 7),
            p(12, 11, 9),
            p(20, 1, 100),
        ];
        assert_eq!(tree_ticks(&all, &[10]), 21);
        assert_eq!(
            tree_ticks(&all, &[10, 11]),
            21,
            "a root inside another tree"
        );
        assert_eq!(tree_ticks(&all, &[99]), 0);
    }
}
