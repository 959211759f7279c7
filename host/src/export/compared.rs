//! What every format shows of a comparison between runs (`unobserved compare`, the
//! browser matrix): one row per arm with each run's median and each later run's ratio
//! to the first with its verdict, then the arms only some runs have and what else
//! differs between the runs.

use super::document::{Cell, Row, Section, SectionKind, Tone};
use crate::report::across::RunsCompared;
use crate::report::fmt_mbps;
use crate::stats::compare::Verdict;
use crate::stats::Integrity;

pub struct ComparedDocument {
    pub title: String,
    pub section: Section,
    /// "only in A: Blob", "differs: browser: …".
    pub lines: Vec<String>,
}

/// `labels` name the runs in `compared.runs` order (run ids, or browser names).
pub fn of(c: &RunsCompared, labels: &[String]) -> ComparedDocument {
    let mut columns = vec!["Arm".to_owned()];
    for (i, l) in labels.iter().enumerate() {
        columns.push(l.clone());
        if i > 0 {
            columns.push(format!("vs {}", labels[0]));
        }
    }
    let rows = c
        .arms
        .iter()
        .map(|a| {
            let mut cells = vec![Cell::text(a.arm.label())];
            for (i, m) in a.medians.iter().enumerate() {
                cells.push(match m {
                    Some(v) => Cell::num(fmt_mbps(Some(*v))),
                    None => Cell::toned(
                        a.integrity[i].as_ref().map_or("–", Integrity::word),
                        Tone::Bad,
                    ),
                });
                if i > 0 {
                    cells.push(match &a.versus_first[i - 1] {
                        Some(cmp) => Cell::toned(
                            format!("{} {}", cmp.ratio_text(2), cmp.verdict.words(cmp.horizon)),
                            match cmp.verdict {
                                Verdict::Slower => Tone::Bad,
                                Verdict::Faster => Tone::Good,
                                Verdict::Same | Verdict::NotResolved => Tone::Plain,
                            },
                        ),
                        None => Cell::text("– (too few samples)"),
                    });
                }
            }
            Row {
                arm: a.arm.label(),
                cells,
                flags: vec![],
            }
        })
        .collect();
    let mut lines: Vec<String> = c
        .unmatched
        .iter()
        .map(|u| format!("only in {}: {}", u.runs.join(", "), u.arm.label()))
        .collect();
    lines.extend(
        c.differences
            .iter()
            .map(|d| format!("differs: {}: {}", d.what, d.values.join(" | "))),
    );
    ComparedDocument {
        title: format!("{} compared with {}", labels[1..].join(", "), labels[0]),
        section: Section {
            kind: SectionKind::Compared,
            title: None,
            columns,
            rows,
            footnotes: vec!["Mbps medians of intact uploads; ratio of the medians to the first with its [95% interval] (exact Mann–Whitney, by ranks)."],
        },
        lines,
    }
}
