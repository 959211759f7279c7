//! The words for what the machine did while a run measured, and for comparisons made
//! per condition or per block (issue 36). Everything here is text; the figures are the
//! report's (`report/conditions.rs`, `stats/blocks.rs`).

use crate::domain::conditions::{Condition, Gap, Load, MachineState, Pressure};
use crate::stats::blocks::{Part, PartOf};
use crate::stats::compare::{Comparison, Verdict};

/// "quiet", "with the CPU busy with other work", "with this run's own CPU load and
/// under I/O pressure", …: the condition as a phrase that follows "measured".
pub fn condition_phrase(c: &Condition) -> String {
    if c.unmeasured {
        return match c.load {
            Load::Cpu => "with this run's own CPU load (the machine not measured)".into(),
            Load::None => "on a machine not measured".into(),
        };
    }
    let mut parts: Vec<&str> = Vec::new();
    if c.load == Load::Cpu {
        parts.push("with this run's own CPU load");
    }
    for p in &c.pressures {
        parts.push(match p {
            Pressure::Cpu => "with the CPU busy with other work",
            Pressure::Io => "under I/O pressure",
            Pressure::Memory => "under memory pressure",
        });
    }
    if parts.is_empty() {
        "on a quiet machine".into()
    } else {
        parts.join(" and ")
    }
}

/// The short name of a condition in a comparison's parts: "when quiet", …
fn condition_when(c: &Condition) -> String {
    if c.is_quiet() {
        "when quiet".into()
    } else {
        condition_phrase(c)
    }
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// What the host saw, in words a reader takes in: "other work used 0.1 of 2 cores; no
/// I/O or memory pressure", "2 of 2 cores were busy with other work for 80% of the
/// time", "some task waited on I/O 35% of the time".
pub fn state_words(s: &MachineState) -> String {
    if s.gap == Some(Gap::NotMeasuredOnThisOs) {
        return "the machine is not measured on this OS".into();
    }
    let mut out = Vec::new();
    if s.all_cores_busy_share >= 0.5 {
        out.push(format!(
            "{n} of {n} cores were busy with other work for {} of the time",
            pct(s.all_cores_busy_share),
            n = s.cores
        ));
    } else {
        out.push(format!(
            "other work used {:.1} of {} cores",
            s.others_cores, s.cores
        ));
    }
    if s.load_cores > 0.05 {
        out.push(format!("this run's own load used {:.1}", s.load_cores));
    }
    match (s.io_some, s.memory_some) {
        (Some(io), Some(mem)) if io < 0.01 && mem < 0.01 => {
            out.push("no I/O or memory pressure".into())
        }
        (io, mem) => {
            if let Some(io) = io {
                out.push(format!("some task waited on I/O {} of the time", pct(io)));
            }
            if let Some(mem) = mem.filter(|m| *m >= 0.01) {
                out.push(format!("on memory {} of the time", pct(mem)));
            }
        }
    }
    if s.gap == Some(Gap::NoPressureStallInfo) {
        out.push("I/O and memory pressure not measured (no /proc/pressure)".into());
    }
    if s.gap == Some(Gap::BrowserUnknown) {
        out.push(
            "the browser's processes were not known, so its own CPU counts as other work".into(),
        );
    }
    out.join("; ")
}

/// The run's one condition: "Measured on a quiet machine (other work used 0.0 of 2
/// cores; no I/O or memory pressure)."
pub fn measured_in(c: &Condition, s: &MachineState) -> String {
    format!("Measured {} ({}).", condition_phrase(c), state_words(s))
}

/// A run whose blocks were measured in more than one condition, each with its blocks.
pub fn changed(parts: &[(Condition, Vec<u32>, MachineState)]) -> String {
    let each: Vec<String> = parts
        .iter()
        .map(|(c, blocks, s)| {
            let ids: Vec<String> = blocks.iter().map(|b| (b + 1).to_string()).collect();
            format!(
                "block(s) {} {} ({})",
                ids.join(", "),
                condition_phrase(c),
                state_words(s)
            )
        })
        .collect();
    format!(
        "The machine's condition changed during the run: {}. Comparisons are given per condition; one that differs between them reads \"depends\".",
        each.join("; ")
    )
}

/// One part's figures: "0.70x [0.65–0.76] slower when quiet".
fn part_text(p: &Part, horizon: f64) -> String {
    let figures = match (p.ci_low, p.ci_high) {
        (Some(lo), Some(hi)) => format!("{:.2}x [{lo:.2}–{hi:.2}]", p.ratio),
        _ => format!("{:.2}x", p.ratio),
    };
    let of = match &p.of {
        PartOf::Condition { condition } => condition_when(condition),
        PartOf::Blocks { blocks } => {
            let ids: Vec<String> = blocks.iter().map(|b| (b + 1).to_string()).collect();
            format!("in block(s) {}", ids.join(", "))
        }
    };
    format!(
        "{figures} {} {of}",
        super::words::verdict(p.verdict, horizon)
    )
}

/// A comparison in words: "1.20x [1.10–1.31] faster", or with its parts, "depends:
/// 0.70x [0.65–0.76] slower when quiet; 1.61x [1.20–2.28] faster with this run's own
/// CPU load".
pub fn comparison_text(c: &Comparison, digits: usize) -> String {
    if c.parts.is_empty() {
        return format!(
            "{} {}",
            super::words::ratio(c, digits),
            super::words::verdict(c.verdict, c.horizon)
        );
    }
    let parts: Vec<String> = c.parts.iter().map(|p| part_text(p, c.horizon)).collect();
    let head = match c.verdict {
        Verdict::Depends => "depends".to_owned(),
        v => format!(
            "{:.digits$}x {}",
            c.ratio,
            super::words::verdict(v, c.horizon)
        ),
    };
    format!("{head}: {}", parts.join("; "))
}
