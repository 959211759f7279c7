//! CSV export: one row per sample, with the run's context on every row.

use super::Exporter;
use crate::domain::arm::Condition;
use crate::domain::arm::Transport;
use crate::domain::sample::{Observed, Sample, SampleStatus};
use crate::report::across::RunsCompared;
use crate::report::{timing_disagrees, RunReport};
use crate::stats::compare::Verdict;
use serde::{Serialize, Serializer};

pub struct Csv;

impl Exporter for Csv {
    fn render(&self, runs: &[RunReport]) -> String {
        write_rows(
            runs.iter()
                .flat_map(|r| r.samples.iter().map(move |s| SampleRow::of(r, s))),
        )
    }

    /// One row per arm and later run: both medians and the ratio with its interval.
    fn render_compared(&self, c: &RunsCompared, labels: &[String]) -> String {
        write_rows(c.arms.iter().flat_map(|a| {
            a.versus_first
                .iter()
                .enumerate()
                .map(move |(i, cmp)| (i, cmp.as_ref().map(|x| &x.comparison)))
                .map(move |(i, cmp)| ComparedRow {
                    arm: a.arm.label(),
                    baseline_run: &labels[0],
                    run: &labels[i + 1],
                    baseline_median_mbps: a.medians[0],
                    median_mbps: a.medians[i + 1],
                    ratio: cmp.as_ref().map(|c| c.ratio),
                    ci_low: cmp.as_ref().and_then(|c| c.ci_low),
                    ci_high: cmp.as_ref().and_then(|c| c.ci_high),
                    verdict: cmp.as_ref().map(|c| c.verdict),
                })
        }))
    }
}

/// The other work a block saw, as one CSV word: "quiet", "cpu", "cpu+io", or
/// "unmeasured" (the OS was not measured).
fn other_work(c: &crate::domain::conditions::Condition) -> String {
    if c.unmeasured {
        return "unmeasured".into();
    }
    if c.pressures.is_empty() {
        return "quiet".into();
    }
    let names: Vec<&str> = c
        .pressures
        .iter()
        .map(|p| match p {
            crate::domain::conditions::Pressure::Cpu => "cpu",
            crate::domain::conditions::Pressure::Io => "io",
            crate::domain::conditions::Pressure::Memory => "memory",
        })
        .collect();
    names.join("+")
}

/// One sample; the fields, in order, are the columns.
#[derive(Serialize, Default)]
struct SampleRow<'a> {
    run_id: &'a str,
    browser: &'a str,
    browser_version: &'a str,
    os: &'a str,
    arm: String,
    body: &'a str,
    condition: Option<Condition>,
    rep: u32,
    status: SampleStatus,
    intact: bool,
    bytes_sent: u64,
    bytes_received: Option<u64>,
    sha256_sent: &'a str,
    sha256_received: Option<&'a str>,
    #[serde(serialize_with = "shown")]
    page_ms: Option<f64>,
    #[serde(serialize_with = "shown")]
    sink_ms: Option<f64>,
    #[serde(serialize_with = "shown")]
    mbps: Option<f64>,
    observed: Observed,
    error: Option<&'a str>,
    sink_bound: bool,
    timing_disagrees: bool,
    transport: Transport,
    protocol: Option<&'a str>,
    /// Its phases (`report::phases`) and the stalls the sink saw (`sink::timeline`).
    #[serde(serialize_with = "shown")]
    preparing_ms: Option<f64>,
    #[serde(serialize_with = "shown")]
    wire_ms: Option<f64>,
    #[serde(serialize_with = "shown")]
    reply_ms: Option<f64>,
    #[serde(serialize_with = "shown")]
    phase_uncertainty_ms: Option<f64>,
    stalls: Option<u64>,
    #[serde(serialize_with = "shown")]
    stalled_ms: Option<f64>,
    /// The block the rep fell in, the load the run put on the machine in it, and the
    /// other work the host saw there (`machine_condition`); empty for a run stored
    /// before blocks or conditions.
    block: Option<u32>,
    load: Option<crate::domain::conditions::Load>,
    machine_condition: Option<String>,
    /// What the host's own client carried to the same sink over the same transport (the
    /// faster of before and after the arms: `report::link`); across a real link, the
    /// link's ceiling.
    #[serde(serialize_with = "shown")]
    ceiling_mbps: Option<f64>,
}

impl<'a> SampleRow<'a> {
    fn of(r: &'a RunReport, s: &'a Sample) -> SampleRow<'a> {
        let summary = r.summary.iter().find(|a| s.is_of(&a.arm));
        let arm = summary.map_or_else(|| s.arm_label(), |a| a.arm.label());
        let phases = crate::report::phases::of_sample(s);
        let block = r
            .run
            .plan
            .as_ref()
            .filter(|p| p.block_reps.is_some())
            .map(|p| p.block_of(s.rep));
        let condition = block
            .filter(|_| !r.run.blocks.is_empty())
            .map(|b| crate::report::conditions::condition_of(&r.run, b));
        SampleRow {
            run_id: &s.run_id,
            browser: &r.run.env.browser,
            browser_version: &r.run.env.browser_version,
            os: &r.run.env.os,
            sink_bound: summary.is_some_and(|a| a.sink_bound),
            arm,
            body: &s.body,
            condition: s.condition(),
            rep: s.rep,
            status: s.status,
            intact: s.intact,
            bytes_sent: s.bytes_sent,
            bytes_received: s.bytes_received,
            sha256_sent: &s.sha256_sent,
            sha256_received: s.sha256_received.as_deref(),
            page_ms: s.page_ms,
            sink_ms: s.sink_ms,
            mbps: s.mbps,
            observed: s.observed.verdict(),
            error: s.error.as_deref(),
            timing_disagrees: timing_disagrees(s),
            transport: s.arm().travels_over(),
            protocol: s.protocol.as_deref(),
            preparing_ms: phases.map(|p| p.preparing_ms),
            wire_ms: phases.map(|p| p.wire_ms),
            reply_ms: phases.map(|p| p.reply_ms),
            phase_uncertainty_ms: phases.map(|p| p.uncertainty_ms),
            stalls: s.timeline.as_ref().map(|t| t.stall_count),
            stalled_ms: s.timeline.as_ref().map(|t| t.stalled_ms),
            block,
            load: condition.as_ref().map(|c| c.load),
            machine_condition: condition.as_ref().map(other_work),
            ceiling_mbps: r
                .run
                .link(s.arm().travels_over())
                .and_then(|l| l.carried_mbps()),
        }
    }
}

/// One arm in one later run against the first.
#[derive(Serialize, Default)]
struct ComparedRow<'a> {
    arm: String,
    baseline_run: &'a str,
    run: &'a str,
    #[serde(serialize_with = "shown")]
    baseline_median_mbps: Option<f64>,
    #[serde(serialize_with = "shown")]
    median_mbps: Option<f64>,
    #[serde(serialize_with = "shown")]
    ratio: Option<f64>,
    #[serde(serialize_with = "shown")]
    ci_low: Option<f64>,
    #[serde(serialize_with = "shown")]
    ci_high: Option<f64>,
    /// As the JSON spells it ("not-resolved").
    verdict: Option<Verdict>,
}

/// The rows under their header, quoted only where RFC 4180 needs it (csv's default).
/// csv writes the header with the first row (BurntSushi/rust-csv#161), so with no rows
/// the header is taken from a default row's, and only the header is kept.
fn write_rows<R: Serialize + Default>(rows: impl IntoIterator<Item = R>) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut none = true;
    for row in rows {
        w.serialize(row).expect("a row of scalars writes to memory");
        none = false;
    }
    if none {
        w.serialize(R::default())
            .expect("a row of scalars writes to memory");
    }
    let bytes = w.into_inner().expect("writing to memory cannot fail");
    let mut text = String::from_utf8(bytes).expect("every field is UTF-8");
    if none {
        text.truncate(text.find('\n').map_or(0, |end| end + 1));
    }
    text
}

/// A figure as Rust prints it ("3", "0.0000001"), as these columns always were; csv's
/// own float format would write "3.0" and "1e-7".
fn shown<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(x) => s.collect_str(x),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests_support::report_of;
    use crate::store::tests_support::{run_record, sample};
    use crate::store::Record;

    /// An error text with every character CSV must quote comes back whole.
    #[test]
    fn a_cell_with_a_comma_a_quote_and_newlines_reads_back_whole() {
        let awkward = "TypeError: a, \"b\"\nc\r\nd";
        let mut s = sample("r", "Blob", 0, 3.0);
        s.error = Some(awkward.into());
        let text = Csv.render(&[report_of(vec![run_record("r"), Record::Sample(s)])]);
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let error = reader.headers().unwrap().iter().position(|h| h == "error");
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 1, "{text}");
        assert_eq!(rows[0].get(error.unwrap()), Some(awkward));
    }

    #[test]
    fn no_samples_still_give_the_header() {
        let text = Csv.render(&[report_of(vec![run_record("r")])]);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(
            text.starts_with("run_id,browser,")
                && text.ends_with(",stalled_ms,block,load,machine_condition,ceiling_mbps\n")
        );
    }

    #[test]
    fn whole_figures_print_without_a_decimal_point() {
        let mut s = sample("r", "Blob", 0, 3.0);
        s.page_ms = Some(0.0000001);
        let text = Csv.render(&[report_of(vec![run_record("r"), Record::Sample(s)])]);
        let row = text.lines().nth(1).unwrap();
        assert!(row.contains(",0.0000001,") && row.contains(",3,"), "{row}");
    }
}
