//! The words for what the machine did while a run measured, and for comparisons made
//! per condition or per block (issue 36). Everything here is text; the figures are the
//! report's (`report/conditions.rs`, `stats/blocks.rs`).

use crate::domain::conditions::{Condition, Gap, Load, MachineState, PageRefusal, Pressure};
use crate::stats::blocks::{Part, PartOf};
use crate::stats::compare::{Comparison, Verdict};

/// Why serve refused a fresh page, as its error `message` says it.
impl std::fmt::Display for PageRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PageRefusal::NotCurrentPage => {
                "only the run's current benchmark page may hand the run to a fresh one"
            }
            PageRefusal::NotABlockStart => {
                "a fresh page begins only at the first rep of the next block"
            }
            PageRefusal::BeyondPlan => "that rep is past the plan's last",
            PageRefusal::Pending => "a fresh page was already granted and has not taken over yet",
            PageRefusal::NotGranted => "this run granted no fresh page",
            PageRefusal::UnknownLoad => "this page was not served for a fresh page of this run",
            PageRefusal::Ended => "the run has ended",
        })
    }
}

/// "on a quiet machine", "with the CPU busy with other work", "with the CPU busy
/// (this run's own load) and under I/O pressure", …: the condition as a phrase that
/// follows "measured".
pub fn condition_phrase(c: &Condition) -> String {
    if c.unmeasured {
        return match c.load {
            Load::Cpu => "with the CPU busy (this run's own load; the machine not measured)".into(),
            Load::None => "on a machine not measured".into(),
        };
    }
    let mut parts: Vec<&str> = Vec::new();
    if c.load == Load::Cpu {
        parts.push("with the CPU busy (this run's own load)");
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
pub fn condition_when(c: &Condition) -> String {
    if c.is_quiet() {
        "when quiet".into()
    } else {
        condition_phrase(c)
    }
}

/// An arm's line in one condition: "Blob when quiet", "Blob with the CPU busy (this
/// run's own load)".
pub fn arm_in(arm: &str, c: &Condition) -> String {
    format!("{arm} {}", condition_when(c))
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
    // Shares below 1% are no pressure; each other one is named.
    let felt = |share: Option<f64>| share.filter(|x| *x >= 0.01);
    match (felt(s.io_some), felt(s.memory_some)) {
        (None, None) if s.io_some.is_some() && s.memory_some.is_some() => {
            out.push("no I/O or memory pressure".into())
        }
        (io, mem) => {
            let waits: Vec<String> = [("I/O", io), ("memory", mem)]
                .into_iter()
                .filter_map(|(on, x)| Some(format!("on {on} {} of the time", pct(x?))))
                .collect();
            if !waits.is_empty() {
                out.push(format!("some task waited {}", waits.join(" and ")));
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

/// Each part with its blocks: "block(s) 1, 3 on a quiet machine (…); block(s) 2 …".
fn parts_text(parts: &[(Condition, Vec<u32>, MachineState)]) -> String {
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
    each.join("; ")
}

/// A run whose blocks were measured in more than one condition, each with its blocks.
pub fn changed(parts: &[(Condition, Vec<u32>, MachineState)]) -> String {
    format!(
        "The machine's condition changed during the run: {}. Comparisons are given per condition; one that differs between them reads \"depends\".",
        parts_text(parts)
    )
}

/// A run whose own load alternated by plan, each load with its blocks.
pub fn loads_planned(parts: &[(Condition, Vec<u32>, MachineState)]) -> String {
    format!(
        "Measured with and without this run's own load, in alternate blocks as planned: {}. Comparisons are given per load; one that differs between them reads \"depends\".",
        parts_text(parts)
    )
}

/// One part's figures and verdict: "0.70x [0.65–0.76] slower".
fn part_figures(p: &Part, horizon: f64) -> String {
    let figures = match (p.ci_low, p.ci_high) {
        (Some(lo), Some(hi)) => format!("{:.2}x [{lo:.2}–{hi:.2}]", p.ratio),
        _ => format!("{:.2}x", p.ratio),
    };
    let verdict = super::words::verdict(p.verdict, horizon);
    match p.too_few_blocks {
        true => format!("{figures} {verdict} ({TOO_FEW_BLOCKS})"),
        false => format!("{figures} {verdict}"),
    }
}

/// Why a part measured over too few blocks has no verdict.
const TOO_FEW_BLOCKS: &str = "too few blocks to judge";

/// One part's figures: "0.70x [0.65–0.76] slower when quiet".
fn part_text(p: &Part, horizon: f64) -> String {
    let of = match &p.of {
        PartOf::Condition { condition } => condition_when(condition),
        PartOf::Blocks { blocks } => {
            let ids: Vec<String> = blocks.iter().map(|b| (b + 1).to_string()).collect();
            format!("in block(s) {}", ids.join(", "))
        }
    };
    format!("{} {of}", part_figures(p, horizon))
}

/// A comparison in words, as its head and its parts: ("1.20x [1.10–1.31] faster", []),
/// or with parts ("depends", ["0.70x [0.65–0.76] slower when quiet", "1.61x [1.20–2.28]
/// faster with the CPU busy (this run's own load)"]).
pub fn comparison_parts(c: &Comparison, digits: usize) -> (String, Vec<String>) {
    if c.parts.is_empty() {
        let head = format!(
            "{} {}",
            super::words::ratio(c, digits),
            super::words::verdict(c.verdict, c.horizon)
        );
        return (head, Vec::new());
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
    (head, parts)
}

/// `comparison_parts` as one text: the head, then its parts after a colon.
pub fn comparison_text(c: &Comparison, digits: usize) -> String {
    match comparison_parts(c, digits) {
        (head, parts) if parts.is_empty() => head,
        (head, parts) => format!("{head}: {}", parts.join("; ")),
    }
}

/// The head of a table's cell, without the parts: "depends vs Uint8Array", "1.20x faster
/// vs Uint8Array" (a run measured in more than one condition shows each part on the
/// row of its condition: `versus_part`).
pub fn versus_head(c: &Comparison, baseline: &str) -> String {
    format!("{} vs {baseline}", comparison_parts(c, 2).0)
}

/// The part of `c` measured in `condition`, as its row's cell: "0.70x [0.65–0.76]
/// slower vs Uint8Array"; a dash when that condition had too few uploads to compare.
pub fn versus_part(c: &Comparison, condition: &Condition, baseline: &str) -> String {
    crate::stats::blocks::part_in(c, condition).map_or_else(
        || "–".to_owned(),
        |p| format!("{} vs {baseline}", part_figures(p, c.horizon)),
    )
}

/// A table's cell for an arm against its baseline: "1.26x [1.18–1.36] faster vs
/// Uint8Array", or "depends vs Uint8Array: 0.70x … when quiet; 1.61x … with …".
pub fn versus_cell(c: &Comparison, baseline: &str) -> String {
    match comparison_parts(c, 2) {
        (head, parts) if parts.is_empty() => format!("{head} vs {baseline}"),
        (head, parts) => format!("{head} vs {baseline}: {}", parts.join("; ")),
    }
}

#[cfg(test)]
pub mod tests {
    //! The cases `tests/fixtures/formats.json` carries for conditions (written by
    //! `export::words::tests`): the extension's views write each of them alike.
    use super::*;
    use crate::report::findings::ConditionPart;
    use crate::report::{Note, Warning};
    use serde_json::{json, Value};

    /// A run whose conditions disagree: every format's cell names both parts
    /// (`ratio_cell`).
    #[test]
    fn a_depends_cell_names_both_parts() {
        use crate::report::conditions::tests::{busy, run};
        let r = run("a", busy(), true);
        let cell = crate::export::words::comparison(&r.comparisons[0]);
        assert!(
            cell.starts_with("depends: 0.69x") && cell.contains("slower when quiet; 1.57x"),
            "{cell}"
        );
    }

    /// The run of `report::conditions::tests` with its own load in odd blocks, each
    /// upload's page and browser time set by its block's load.
    pub fn loaded_run() -> crate::report::RunReport {
        use crate::store::Record;
        let loaded = Condition {
            load: Load::Cpu,
            ..Condition::default()
        };
        let mut records = crate::report::conditions::tests::records("l", loaded, true);
        for r in &mut records {
            if let Record::Sample(s) = r {
                let busy = (s.rep / 3) % 2 == 1;
                s.page_ms = Some(if busy { 300.0 } else { 100.0 });
                s.sink_request_ms = Some(if busy { 60.0 } else { 90.0 });
            }
        }
        crate::report::tests_support::report_of(records)
    }

    /// Issue 36: a run measured in two conditions shows no median, range or browser
    /// time pooled across them, in any format; each arm's are given per condition.
    #[test]
    fn a_run_in_two_conditions_shows_each_arms_figures_per_condition() {
        use crate::export::{document, Exporter};
        let r = loaded_run();
        let blob = &r.summary[1];
        assert_eq!(blob.by_condition.len(), 2, "{:?}", blob.by_condition);
        let (quiet, busy) = (&blob.by_condition[0].figures, &blob.by_condition[1].figures);
        assert_eq!((quiet.n, busy.n), (18, 18));
        assert!(quiet.median_mbps.unwrap() < 710.0 && busy.median_mbps.unwrap() > 1550.0);
        // The pooled median lies between the two, and no format shows it.
        let pooled = crate::export::words::mbps(blob.median_mbps);
        let rows = &document::of(&r).sections[0].rows;
        let cells: Vec<Vec<&str>> = rows
            .iter()
            .map(|row| row.cells.iter().map(|c| c.text.as_str()).collect())
            .collect();
        let blob_rows: Vec<&Vec<&str>> =
            cells.iter().filter(|c| c[0].starts_with("Blob")).collect();
        assert_eq!(blob_rows.len(), 3, "{cells:?}");
        assert_eq!(
            blob_rows[0][2], "–",
            "the head row has no pooled median: {cells:?}"
        );
        assert_eq!(blob_rows[1][0], "Blob when quiet");
        assert_eq!(
            blob_rows[1][2],
            crate::export::words::mbps(quiet.median_mbps)
        );
        assert!(blob_rows[0].contains(&"depends vs Uint8Array"), "{cells:?}");
        assert!(
            blob_rows[2]
                .iter()
                .any(|c| c.ends_with("faster vs Uint8Array")),
            "{cells:?}"
        );
        for text in [
            crate::export::table::Table { colour: false }.render(std::slice::from_ref(&r)),
            crate::export::markdown::Markdown.render(std::slice::from_ref(&r)),
            crate::export::html::Html.render(std::slice::from_ref(&r)),
        ] {
            for shown in [
                format!(" {pooled} "),
                format!(">{pooled}<"),
                format!("{pooled} Mbps"),
            ] {
                assert!(!text.contains(&shown), "pooled {pooled} shown:\n{text}");
            }
        }
        // The browser's time, per arm and condition: 10 of 100 ms quiet, 240 of 300 loaded.
        let note = r
            .notes
            .iter()
            .find(|n| matches!(n, crate::report::Note::BrowserTime { .. }))
            .unwrap()
            .to_string();
        assert!(
            note.contains("Blob when quiet 10 of 100 ms")
                && note.contains("Blob with the CPU busy (this run's own load) 240 of 300 ms"),
            "{note}"
        );
        let json: Value =
            serde_json::from_str(&crate::export::json::Json { launch: None }.render(&[r])).unwrap();
        assert_eq!(
            json["runs"][0]["summary"][1]["by_condition"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }

    fn state(others: f64, all_busy: f64, io: Option<f64>, mem: Option<f64>) -> MachineState {
        MachineState {
            seconds: 12.5,
            cores: 2,
            others_cores: others,
            all_cores_busy_share: all_busy,
            own_cores: 0.9,
            io_some: io,
            memory_some: mem,
            ..MachineState::default()
        }
    }

    /// A condition and the state it was named from, each a case of its own.
    fn cases() -> Vec<(Condition, MachineState)> {
        let quiet = state(0.04, 0.0, Some(0.0), Some(0.0));
        let busy = state(1.85, 0.8, Some(0.002), Some(0.0));
        let io = state(0.2, 0.0, Some(0.35), Some(0.004));
        let memory = state(0.3, 0.125, Some(0.0), Some(0.0625));
        let loaded = MachineState {
            load_cores: 1.9,
            ..state(0.05, 0.0, Some(0.0), Some(0.0))
        };
        let no_psi = MachineState {
            gap: Some(Gap::NoPressureStallInfo),
            ..state(0.25, 0.0, None, None)
        };
        let unknown_browser = MachineState {
            gap: Some(Gap::BrowserUnknown),
            ..state(1.25, 0.5, Some(0.0), Some(0.0))
        };
        let other_os = MachineState {
            gap: Some(Gap::NotMeasuredOnThisOs),
            ..state(0.0, 0.0, None, None)
        };
        let mut out: Vec<(Condition, MachineState)> =
            [quiet, busy, io, memory, no_psi, unknown_browser, other_os]
                .into_iter()
                .map(|s| (s.condition(Load::None), s))
                .collect();
        out.push((loaded.condition(Load::Cpu), loaded));
        out.push((other_os.condition(Load::Cpu), other_os));
        out.push((busy.condition(Load::Cpu), busy));
        out
    }

    pub fn shared_cases() -> Value {
        let cases = cases();
        let part = |i: usize, blocks: &[u32]| ConditionPart {
            condition: cases[i].0.clone(),
            blocks: blocks.to_vec(),
            state: cases[i].1,
        };
        fn rendered<T: serde::Serialize + std::fmt::Display>(f: T) -> Value {
            json!({"finding": f, "text": f.to_string()})
        }
        let measured = [0, 7].map(|i| {
            rendered(Note::MeasuredIn {
                condition: cases[i].0.clone(),
                state: cases[i].1,
            })
        });
        let other_work = [1, 2].map(|i| {
            rendered(Warning::OtherWork {
                condition: cases[i].0.clone(),
                state: cases[i].1,
            })
        });
        let mut findings: Vec<Value> = measured.into_iter().chain(other_work).collect();
        for (a, b) in [(0, 7), (1, 2), (4, 9)] {
            findings.push(rendered(Warning::ConditionChanged {
                parts: vec![part(a, &[0, 2, 4]), part(b, &[1, 3])],
            }));
        }
        findings.push(rendered(Note::LoadsPlanned {
            parts: vec![part(0, &[0, 2, 4]), part(7, &[1, 3, 5])],
        }));
        json!({
            "cases": cases.iter().map(|(c, s)| json!({
                "condition": c, "state": s, "phrase": condition_phrase(c),
                "state_words": state_words(s), "measured_in": measured_in(c, s),
            })).collect::<Vec<_>>(),
            "findings": findings,
        })
    }
}
