//! What every report format shows, decided once: a run's heading, its sections
//! (summary, comparisons' baselines, encrypted chunks, the control), notes, warnings and
//! environment, as text cells with a tone. The formats only lay this out, so none can
//! show more or less than another (export/tests.rs checks it).

use super::words::{self, mbps as fmt_mbps};
use crate::domain::arm::Arm;
use crate::domain::arm::Transport;
use crate::domain::sample::Observed;
use crate::report::RunReport;

/// How a cell reads: formats colour or badge it; the words are the same everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Good,
    Bad,
    Warn,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub text: String,
    pub tone: Tone,
    pub numeric: bool,
}

impl Cell {
    pub fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            tone: Tone::Plain,
            numeric: false,
        }
    }
    pub fn num(text: impl Into<String>) -> Cell {
        Cell {
            numeric: true,
            ..Cell::text(text)
        }
    }
    pub fn toned(text: impl Into<String>, tone: Tone) -> Cell {
        Cell {
            tone,
            ..Cell::text(text)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionKind {
    Summary,
    Encrypted,
    Control,
    /// The same upload over each transport the run chose.
    Transports,
    /// Runs side by side (`unobserved compare`, the browser matrix).
    Compared,
    /// Where each arm's time went (`export/phases.rs`).
    Phases,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The arm this row is about (HTML's data-body).
    pub arm: String,
    pub cells: Vec<Cell>,
    /// Marks on the row as a whole, e.g. "sink-bound".
    pub flags: Vec<&'static str>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub kind: SectionKind,
    /// None for the summary, which follows the heading directly.
    pub title: Option<&'static str>,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    pub footnotes: Vec<&'static str>,
}

impl Section {
    /// A column of figures, aligned right: its cells are numbers (the first row says).
    pub fn numeric_column(&self, i: usize) -> bool {
        self.rows.first().is_some_and(|r| r.cells[i].numeric)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunDocument {
    pub run_id: String,
    /// "Chromium 156.0.1 on Linux"
    pub title: String,
    pub observed: Observed,
    /// "complete", or "incomplete (the tab closed)".
    pub status: Cell,
    /// "32 MiB per upload × 6 reps, 1 warm-up · sink ceiling 20353 Mbps (…), hashing …"
    pub plan: Option<String>,
    pub sections: Vec<Section>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
    pub environment: Vec<(&'static str, String)>,
    /// What the run's badges say beside the status: every arm intact or not, a
    /// sink-bound arm.
    pub badges: Vec<Cell>,
    /// One bar per arm, in the summary's order.
    pub chart: Vec<ChartBar>,
    /// How far the chart reaches, and its legend.
    pub chart_scale: crate::report::chart_scale::ChartScale,
}

/// An arm as a chart draws it: its median and range, and the ceiling of the sink its
/// transport uploaded to (`RunMeta::ceiling_of`, the rule the sink-bound check uses).
#[derive(Debug, Clone, PartialEq)]
pub struct ChartBar {
    pub arm: String,
    pub median_mbps: Option<f64>,
    pub range_mbps: Option<(f64, f64)>,
    pub intact: bool,
    /// The integrity word, shown where there is no median.
    pub integrity: &'static str,
    pub ceiling_mbps: Option<f64>,
}

/// One bar per arm; per arm and condition in a run measured in more than one.
fn chart_bars(r: &RunReport) -> Vec<ChartBar> {
    let bar = |label: String, a: &crate::stats::ArmSummary| ChartBar {
        arm: label,
        median_mbps: a.median_mbps,
        range_mbps: a.min_mbps.zip(a.max_mbps),
        intact: a.integrity.is_intact(),
        integrity: words::integrity_word(&a.integrity),
        ceiling_mbps: r.run.ceiling_of(a.arm.travels_over()).0,
    };
    r.summary
        .iter()
        .flat_map(|a| match a.by_condition.as_slice() {
            [] => vec![bar(a.arm.label(), a)],
            each => each
                .iter()
                .map(|c| {
                    let label = super::conditions::arm_in(&a.arm.label(), &c.condition);
                    bar(label, &c.figures)
                })
                .collect(),
        })
        .collect()
}

fn badges(r: &RunReport) -> Vec<Cell> {
    // A run with no samples has nothing to vouch for.
    let integrity = if r.summary.is_empty() {
        Cell::toned("no samples", Tone::Warn)
    } else if r.summary.iter().all(|a| a.integrity.is_intact()) {
        Cell::toned("all intact", Tone::Good)
    } else {
        Cell::toned("integrity problems", Tone::Bad)
    };
    let sink_bound = r
        .summary
        .iter()
        .any(|a| a.sink_bound)
        .then(|| Cell::toned("sink-bound arm", Tone::Warn));
    std::iter::once(integrity).chain(sink_bound).collect()
}

pub fn of(r: &RunReport) -> RunDocument {
    let m = &r.run;
    RunDocument {
        run_id: m.run_id.clone(),
        title: format!(
            "{} {} on {}",
            m.env.browser, m.env.browser_version, m.env.os
        ),
        observed: m.observed,
        status: Cell::toned(
            super::words::run_status(&m.status.to_string(), m.end_reason, m.reason.as_deref()),
            if m.status.is_complete() {
                Tone::Good
            } else {
                Tone::Warn
            },
        ),
        plan: plan_line(r),
        sections: [
            Some(summary(r)),
            transports(r),
            encrypted(r),
            control(r),
            super::phases::section(r),
        ]
        .into_iter()
        .flatten()
        .collect(),
        notes: r.notes.iter().map(ToString::to_string).collect(),
        warnings: r.warnings.iter().map(ToString::to_string).collect(),
        environment: environment(r),
        badges: badges(r),
        chart: chart_bars(r),
        chart_scale: crate::report::chart_scale(r),
    }
}

fn plan_line(r: &RunReport) -> Option<String> {
    let m = &r.run;
    let p = m.plan.as_ref()?;
    // Auto-sampled, the plan's reps are where it started; say how many it took.
    let reps = match p.auto {
        Some(_) => format!(
            "{} reps (auto from {})",
            crate::report::auto_budget::reps_taken(r),
            p.minimum_reps()
        ),
        None => format!("{} reps", p.minimum_reps()),
    };
    let mut line = format!(
        "{} per upload × {reps}, {} warm-up",
        human_bytes(p.size_bytes),
        p.warmup
    );
    let what = super::ceiling::what(r);
    if let Some(c) = m.sink_ceiling_mbps {
        line += &format!(" · {what} {c:.0} Mbps");
        if let Some((lo, hi)) = m.sink_ceiling_range {
            line += &format!(" ({lo:.0}–{hi:.0})");
        }
        if let Some(h) = m.sink_hash_mbps {
            line += &format!(", hashing {h:.0} Mbps");
        }
    }
    for (t, c) in &m.transport_ceilings {
        let (lo, hi) = c.receive_range;
        line += &format!(" · {t} {what} {:.0} Mbps ({lo:.0}–{hi:.0})", c.receive_mbps);
    }
    Some(line)
}

/// How the run's intervals were made: over its blocks (each block one figure) when it
/// had enough of them, else by ranks over the reps (`stats::blocks`).
const BY_RANKS: &str = "Mbps (10^6 bits/s) over intact uploads; ratio of the medians with its [95% interval] (exact Mann–Whitney, by ranks).";
const BY_BLOCKS: &str = "Mbps (10^6 bits/s) over intact uploads; ratio of the medians with its [95% interval] (Student's t over the run's blocks, each block one figure).";
const BY_EITHER: &str = "Mbps (10^6 bits/s) over intact uploads; ratio of the medians with its [95% interval] (Student's t over the run's blocks where it had three or more, else exact Mann–Whitney, by ranks).";

fn interval_footnote(r: &RunReport) -> &'static str {
    use crate::stats::blocks::{PartOf, MIN_BLOCKS};
    let over_blocks = |blocks: Option<usize>| blocks.is_some_and(|b| b >= MIN_BLOCKS);
    // Whether each interval the table shows was made over blocks: a comparison given
    // per condition shows each condition's interval (those too few blocks to judge
    // show none), any other its own.
    let made: Vec<bool> = r
        .comparisons
        .iter()
        .flat_map(|c| {
            let conditions: Vec<_> = c
                .parts
                .iter()
                .filter(|p| matches!(p.of, PartOf::Condition { .. }))
                .collect();
            match conditions.as_slice() {
                [] => vec![over_blocks(c.blocks)],
                parts => parts
                    .iter()
                    .filter(|p| !p.too_few_blocks)
                    .map(|p| over_blocks(p.blocks))
                    .collect(),
            }
        })
        .collect();
    match (made.iter().any(|&b| b), made.iter().all(|&b| b)) {
        (false, _) => BY_RANKS,
        (true, true) => BY_BLOCKS,
        (true, false) => BY_EITHER,
    }
}

fn summary(r: &RunReport) -> Section {
    let baselines: Vec<&crate::domain::arm::Arm> =
        r.comparisons.iter().map(|c| c.baseline.arm()).collect();
    let single = baselines.windows(2).all(|w| w[0] == w[1]);
    let mut footnotes = vec![interval_footnote(r)];
    if !single {
        footnotes.push("Baselines: body kinds vs Uint8Array over the same transport, pipelined vs serial at the same chunk size, parallel xN vs x1.");
    }
    if r.summary.iter().any(|a| !a.by_condition.is_empty()) {
        footnotes.push("The run's blocks were measured in more than one condition: each arm's median, range and ratio are given per condition, never pooled across them.");
    }
    let share = super::ceiling::shown(r);
    let mut section = Section {
        kind: SectionKind::Summary,
        title: None,
        columns: [
            "Body",
            "n",
            "Median",
            "Min–max",
            "IQR",
            "Ratio [95% CI]",
            "Integrity",
        ]
        .map(String::from)
        .to_vec(),
        rows: r
            .summary
            .iter()
            .flat_map(|a| arm_rows(r, a, share))
            .collect(),
        footnotes,
    };
    with_ceiling(&mut section, r);
    section
}

/// An arm's rows: one with its figures; in a run measured in more than one condition,
/// a head with its count and verdict, then one row per condition with that
/// condition's figures and part of the comparison.
fn arm_rows(r: &RunReport, a: &crate::stats::ArmSummary, share: bool) -> Vec<Row> {
    if a.by_condition.is_empty() {
        return vec![figures_row(a.arm.label(), a, ratio_cell(r, &a.arm), share)];
    }
    let dash = || Cell::num("–");
    let mut head = figures_row(a.arm.label(), a, ratio_head(r, &a.arm), share);
    for i in [2, 3, 4] {
        head.cells[i] = dash();
    }
    if share {
        head.cells[5] = dash();
    }
    let each = a.by_condition.iter().map(|c| {
        let label = super::conditions::arm_in(&a.arm.label(), &c.condition);
        let ratio = part_cell(r, &a.arm, &c.condition);
        figures_row(label, &c.figures, ratio, share)
    });
    std::iter::once(head).chain(each).collect()
}

/// One row of figures: name, n, median, range, IQR, (share,) ratio, integrity.
fn figures_row(label: String, a: &crate::stats::ArmSummary, ratio: String, share: bool) -> Row {
    let mut cells = vec![
        Cell::text(&label),
        Cell::num(a.n.to_string()),
        Cell::num(fmt_mbps(a.median_mbps)),
        Cell::num(words::range(a.min_mbps, a.max_mbps)),
        Cell::num(fmt_mbps(a.iqr_mbps())),
    ];
    if share {
        cells.push(super::ceiling::share_cell(a));
    }
    cells.push(Cell::text(ratio));
    cells.push(Cell::toned(
        a.integrity.to_string(),
        if a.integrity.is_intact() {
            Tone::Good
        } else {
            Tone::Bad
        },
    ));
    Row {
        arm: label,
        cells,
        flags: if a.sink_bound {
            vec!["sink-bound"]
        } else {
            vec![]
        },
    }
}

/// The link's ceiling beside the arms (`ceiling.rs`): each arm's share of it after its
/// IQR (the rows carry it already), and the host's own client as rows below them.
fn with_ceiling(section: &mut Section, r: &RunReport) {
    if !super::ceiling::shown(r) {
        return;
    }
    const AFTER_IQR: usize = 5;
    section
        .columns
        .insert(AFTER_IQR, super::ceiling::COLUMN.into());
    let columns = section.columns.len();
    section.rows.extend(super::ceiling::rows(r, columns));
    section.footnotes.push("Of ceiling: the median over what the host's own client carried to the same sink, at the same size and over the same transport, before the arms and after (the faster of the two); across a real link that is the link's ceiling.");
}

fn encrypted(r: &RunReport) -> Option<Section> {
    if r.encrypted.is_empty() {
        return None;
    }
    let ms = |v: Option<f64>| v.map_or_else(|| "–".into(), |x| format!("{x:.0}"));
    Some(Section {
        kind: SectionKind::Encrypted,
        title: Some("Encrypted chunked upload (AES-256-GCM, every tag verified at the sink)"),
        columns: [
            "Arm",
            "Mbps",
            "client ms",
            "PUT ms",
            "bad tags",
            "most pipelining can save (client / PUT)",
        ]
        .map(String::from)
        .to_vec(),
        rows: r
            .encrypted
            .iter()
            .map(|e| Row {
                arm: e.arm.clone(),
                cells: vec![
                    Cell::text(&e.arm),
                    Cell::num(fmt_mbps(e.median_mbps)),
                    Cell::num(ms(e.client_ms)),
                    Cell::num(ms(e.put_ms)),
                    Cell::toned(
                        e.chunks_with_bad_tags.to_string(),
                        if e.chunks_with_bad_tags == 0 {
                            Tone::Good
                        } else {
                            Tone::Bad
                        },
                    ),
                    Cell::num(
                        e.pipelining_ceiling
                            .map_or_else(|| "–".into(), |c| format!("{:.0}%", c * 100.0)),
                    ),
                ],
                flags: vec![],
            })
            .collect(),
        footnotes: vec![],
    })
}

fn transports(r: &RunReport) -> Option<Section> {
    if r.transports.is_empty() {
        return None;
    }
    Some(Section {
        kind: SectionKind::Transports,
        title: Some(
            "Transports: the same upload over each (h2 and h1-tls over TLS, h1 in the clear)",
        ),
        columns: ["Arm", "Compared with", "Ratio [95% CI]"]
            .map(String::from)
            .to_vec(),
        rows: r
            .transports
            .iter()
            .map(|c| Row {
                arm: c.arm.label(),
                cells: vec![
                    Cell::text(c.arm.label()),
                    Cell::text(c.baseline.label()),
                    Cell::text(words::comparison(c)),
                ],
                flags: vec![],
            })
            .collect(),
        footnotes: vec![if r
            .summary
            .iter()
            .any(|a| a.arm.travels_over() == Transport::H1Tls)
        {
            "h2 vs h1-tls is HTTP/2 itself; h1-tls vs h1 is the cost of TLS."
        } else {
            "h2 vs h1 is HTTP/2 and TLS together: add h1-tls to --transport to tell them apart."
        }],
    })
}

fn control(r: &RunReport) -> Option<Section> {
    if r.control.is_empty() {
        return None;
    }
    Some(Section {
        kind: SectionKind::Control,
        title: Some("Positive control: the same uploads with a debugger attached (Network domain on) and detached"),
        columns: ["Body", "Attached", "Detached", "Slowdown (detached / attached) [95% CI]"]
            .map(String::from)
            .to_vec(),
        rows: r
            .control
            .iter()
            .map(|c| Row {
                arm: c.arm.label(),
                cells: vec![
                    Cell::text(c.arm.label()),
                    Cell::num(fmt_mbps(c.attached_median_mbps)),
                    Cell::num(fmt_mbps(c.detached_median_mbps)),
                    Cell::text(words::slowdown(c.slowdown.as_ref())),
                ],
                flags: vec![],
            })
            .collect(),
        footnotes: vec![],
    })
}

fn environment(r: &RunReport) -> Vec<(&'static str, String)> {
    let m = &r.run;
    vec![
        ("Run", m.run_id.clone()),
        ("Browser", super::words::browser(&m.env)),
        ("OS", m.env.os.clone()),
        ("CPU", m.cpu.clone().unwrap_or_else(|| "unknown".into())),
        ("Host version", m.host_version.clone()),
        ("Extension version", m.env.extension_version.clone()),
        (
            "Started",
            m.started_at.clone().unwrap_or_else(|| "unknown".into()),
        ),
    ]
}

pub use crate::export::units::human_bytes;

/// The head of an arm's comparison, without its parts: "depends vs Uint8Array",
/// "1.20x faster vs Uint8Array", "baseline", or a dash.
fn ratio_head(report: &RunReport, arm: &Arm) -> String {
    match report.comparisons.iter().find(|c| c.arm.arm() == arm) {
        Some(c) => super::conditions::versus_head(c, &c.baseline.label()),
        None => ratio_cell(report, arm),
    }
}

/// An arm's comparison in one condition: "0.70x [0.66–0.76] slower vs Uint8Array",
/// "baseline", or a dash when that condition had too few uploads to compare.
fn part_cell(
    report: &RunReport,
    arm: &Arm,
    condition: &crate::domain::conditions::Condition,
) -> String {
    match report.comparisons.iter().find(|c| c.arm.arm() == arm) {
        Some(c) => super::conditions::versus_part(c, condition, &c.baseline.label()),
        None => ratio_cell(report, arm),
    }
}

/// "1.05x [0.81–1.76] not resolved vs Uint8Array" for an arm with a comparison,
/// "baseline" for an arm others are compared with, else a dash.
fn ratio_cell(report: &RunReport, arm: &Arm) -> String {
    if let Some(c) = report.comparisons.iter().find(|c| c.arm.arm() == arm) {
        return super::conditions::versus_cell(c, &c.baseline.label());
    }
    if report.comparisons.iter().any(|c| c.baseline.arm() == arm) {
        return "baseline".into();
    }
    "–".into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::conditions::Condition;

    #[test]
    fn the_interval_footnote_says_how_the_runs_intervals_were_made() {
        // 12 blocks of 3 reps: its comparison is over the blocks.
        let mut r = crate::report::conditions::tests::run("b", Condition::default(), false);
        assert!(!r.comparisons.is_empty());
        assert!(r.comparisons.iter().all(|c| c.blocks == Some(12)));
        assert_eq!(summary(&r).footnotes[0], BY_BLOCKS);
        // One comparison pooled beside one over blocks: both named.
        let mut pooled = r.comparisons[0].clone();
        pooled.blocks = None;
        r.comparisons.push(pooled);
        assert_eq!(summary(&r).footnotes[0], BY_EITHER);
        // Every comparison pooled (fewer than three blocks): by ranks.
        for c in &mut r.comparisons {
            c.blocks = Some(2);
        }
        assert_eq!(summary(&r).footnotes[0], BY_RANKS);
    }

    /// A run measured in two conditions gives each condition's interval over its own
    /// blocks (6 each here), so its footnote says blocks, though the comparison that
    /// holds the parts has no blocks of its own.
    #[test]
    fn a_run_in_two_conditions_footnotes_its_parts_intervals_as_over_blocks() {
        let r = crate::export::conditions::tests::loaded_run();
        let parts: Vec<Option<usize>> = r
            .comparisons
            .iter()
            .flat_map(|c| c.parts.iter().map(|p| p.blocks))
            .collect();
        assert!(
            !parts.is_empty() && parts.iter().all(|b| *b == Some(6)),
            "{parts:?}"
        );
        assert!(r.comparisons.iter().all(|c| c.blocks.is_none()));
        assert_eq!(summary(&r).footnotes[0], BY_BLOCKS);
    }
}
