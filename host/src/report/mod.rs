//! Reports read from the store: everything shown is recomputed from stored records, so
//! any figure can be regenerated later. One file per output format.

pub mod across;
pub mod analysis;
pub mod auto_budget;
pub mod chart_scale;
pub mod conditions;
pub mod findings;
pub mod gate;
pub mod link;
pub mod machine_check;
pub mod module_code;
pub mod phases;
pub mod pooled;

pub use findings::{Note, Warning};

use crate::domain::arm::{Arm, ArmKind, Condition, Transport};
use crate::domain::run::{RunState, RunStatus};
use crate::domain::sample::{Observed, Sample};
use crate::stats::compare::{self, Comparison, Side};
use crate::stats::{summarise, ArmSummary};
use crate::store::{Record, StoreContents};
use serde::Serialize;

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RunReport {
    pub run: RunMeta,
    pub samples: Vec<Sample>,
    pub summary: Vec<ArmSummary>,
    /// Every arm against the baseline arm, with its 95% interval and verdict.
    pub comparisons: Vec<Comparison>,
    /// The negative control: the baseline body against itself, when the run had one.
    pub negative_control: Option<Comparison>,
    /// Warnings about the figures (sink-bound arms, timing disagreements), typed.
    #[serde(serialize_with = "findings::with_messages")]
    #[schemars(with = "Vec<findings::Rendered<'static, Warning>>")]
    pub warnings: Vec<Warning>,
    /// Observations that are not problems (where the page time went), typed.
    #[serde(serialize_with = "findings::with_messages")]
    #[schemars(with = "Vec<findings::Rendered<'static, Note>>")]
    pub notes: Vec<Note>,
    /// In a control run: per body kind, detached against attached (the slowdown).
    pub control: Vec<ControlRow>,
    /// Encrypted chunked uploads: client work against PUT time per arm.
    pub encrypted: Vec<EncryptedRow>,
    /// The same upload over different transports (h2 vs h1-tls vs h1), when the run
    /// chose several.
    pub transports: Vec<Comparison>,
    /// Uploads of a TLS arm that arrived over another protocol than the arm's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub protocol_mismatches: Vec<ProtocolMismatch>,
    /// Per arm, where its uploads' time went (`phases.rs`): medians of preparing, on
    /// the wire and reply, for arms whose uploads carry the sink's timeline.
    pub phases: Vec<phases::ArmPhases>,
}

/// A browser that used another protocol than the arm's transport (say, HTTP/1.1 on
/// the h2 listener): those uploads describe that protocol, not the arm's.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ProtocolMismatch {
    pub arm: String,
    pub transport: Transport,
    pub arrived_over: String,
    pub uploads: usize,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct EncryptedRow {
    pub arm: String,
    pub chunk_bytes: u64,
    pub schedule: String,
    pub median_mbps: Option<f64>,
    /// Median per-chunk generate + encrypt time in the page.
    pub client_ms: Option<f64>,
    /// Median per-chunk PUT time.
    pub put_ms: Option<f64>,
    /// client / PUT: the most that overlapping the two could ever save (the write-up's table).
    pub pipelining_ceiling: Option<f64>,
    pub chunks_with_bad_tags: u64,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ControlRow {
    /// The arm both halves upload, without their condition; written with its label.
    #[serde(serialize_with = "crate::stats::side::labelled")]
    #[schemars(with = "crate::stats::side::Labelled")]
    pub arm: Arm,
    pub attached_median_mbps: Option<f64>,
    pub detached_median_mbps: Option<f64>,
    /// detached / attached, with its 95% interval and verdict.
    pub slowdown: Option<Comparison>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RunMeta {
    /// `model::valid_run_id`: run ids end up in file names.
    #[schemars(extend("pattern" = "^[A-Za-z0-9_-]{1,64}$"))]
    pub run_id: String,
    #[serde(flatten)]
    pub env: crate::domain::sample::Environment,
    pub cpu: Option<String>,
    pub host_version: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    /// How the run ended, or Running when no end was recorded.
    pub status: RunState,
    pub reason: Option<String>,
    /// Why it ended, typed, when the host knows: the sink went away, or which side
    /// stalled when it ran out of time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<crate::domain::run::EndReason>,
    /// Why an `--auto` run stopped adding reps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_stop: Option<crate::domain::plan::AutoStop>,
    /// From every sample's evidence.
    pub observed: Observed,
    pub source: String,
    pub plan: Option<crate::domain::plan::Plan>,
    pub sink_ceiling_mbps: Option<f64>,
    pub sink_ceiling_range: Option<(f64, f64)>,
    pub sink_hash_mbps: Option<f64>,
    /// The TLS sinks' own ceilings, per transport, when the run used TLS transports.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    #[schemars(schema_with = "ceilings_schema")]
    pub transport_ceilings:
        std::collections::BTreeMap<Transport, crate::domain::ceiling::TransportCeiling>,
    /// The same ceilings measured again after the last upload (h1's under `h1`): the
    /// ceiling before and after the arms (`link.rs`).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    #[schemars(schema_with = "after_schema")]
    pub ceilings_after:
        std::collections::BTreeMap<Transport, crate::domain::ceiling::TransportCeiling>,
    /// Where the uploads went: the host's own sink, or a remote one across a link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sink: Option<crate::domain::run::SinkChoice>,
    /// The machine calibration at the run's start and end (`machine.rs`), which
    /// `compare` checks before it sets two runs side by side.
    #[serde(skip_serializing_if = "crate::domain::machine::Machine::is_empty")]
    pub machine: crate::domain::machine::Machine,
    /// Each block of the run and what the machine did meanwhile (`conditions/`), in
    /// block order; empty for runs stored before conditions were recorded.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<crate::domain::conditions::BlockConditions>,
    /// The run took turns rep by rep with other builds' runs (`interleave.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interleaved: Option<crate::platform::turns::Interleaved>,
    /// The run is one of a series of `run --runs N` (`series.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series: Option<crate::domain::series::Series>,
}

/// `transport_ceilings`: an object keyed by transport name.
fn ceilings_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "The TLS sinks' own ceilings, per transport, when the run used TLS transports.",
        "type": "object",
        "propertyNames": generator.subschema_for::<Transport>(),
        "additionalProperties": generator.subschema_for::<crate::domain::ceiling::TransportCeiling>(),
    })
}

/// `ceilings_after`: an object keyed by transport name.
fn after_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "The sinks' (or a remote link's) ceilings measured again after the last upload, per transport.",
        "type": "object",
        "propertyNames": generator.subschema_for::<Transport>(),
        "additionalProperties": generator.subschema_for::<crate::domain::ceiling::TransportCeiling>(),
    })
}

impl RunMeta {
    /// The receive ceiling (median, and slowest and fastest round) of the sink a
    /// transport uploads to: each transport has its own sink.
    pub fn ceiling_of(&self, t: Transport) -> (Option<f64>, Option<(f64, f64)>) {
        match t {
            Transport::H1 => (self.sink_ceiling_mbps, self.sink_ceiling_range),
            t => self.transport_ceilings.get(&t).map_or((None, None), |c| {
                (Some(c.receive_mbps), Some(c.receive_range))
            }),
        }
    }
}

/// An arm whose median reaches this share of the sink's ceiling measures the sink.
pub const SINK_BOUND_SHARE: f64 = 0.7;
/// Page and sink timings further apart than this are flagged.
pub const TIMING_TOLERANCE: f64 = 0.2;

struct Ended {
    status: RunStatus,
    reason: Option<String>,
    end_reason: Option<crate::domain::run::EndReason>,
    recorded_at: String,
    auto_stop: Option<crate::domain::plan::AutoStop>,
}

#[derive(Default)]
struct Gathered {
    run: Option<crate::store::RunRecord>,
    end: Option<Ended>,
    samples: Vec<Sample>,
    /// The first sample's environment (a run record of an old extension lacks one).
    first_env: Option<crate::domain::sample::Environment>,
    observed: crate::domain::sample::ObservedTally,
    machine: crate::domain::machine::Machine,
    series: Option<crate::domain::series::Series>,
    blocks: Vec<crate::domain::conditions::BlockConditions>,
    ceilings_after: std::collections::BTreeMap<Transport, crate::domain::ceiling::TransportCeiling>,
}

/// One run's records, grouped, with what lists and filters need (its `RunMeta`), and
/// no statistics yet: reading a store costs as much as its lines, and only the runs a
/// report shows are analysed.
pub struct StoredRun {
    pub meta: RunMeta,
    samples: Vec<Sample>,
}

impl StoredRun {
    /// The run's full analysis: summaries, comparisons, warnings.
    pub fn analyse(self) -> RunReport {
        build(self.meta, self.samples)
    }
}

/// Whether a report holds every upload's timeline points as it reads the store. Points
/// are most of a stored sample; a report that shows only phases (`Format::points`), and
/// the analysis the popup draws, drop them as each line is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimelinePoints {
    #[default]
    Keep,
    Drop,
}

/// Records grouped by run as they are read, in the order runs first appear.
#[derive(Default)]
pub struct Grouping {
    order: Vec<String>,
    by_id: std::collections::HashMap<String, Gathered>,
    points: TimelinePoints,
}

impl Grouping {
    pub fn new(points: TimelinePoints) -> Grouping {
        Grouping {
            points,
            ..Grouping::default()
        }
    }

    pub fn add(&mut self, mut record: Record) {
        let Some(id) = record.run_id().map(str::to_owned) else {
            return;
        };
        if let (TimelinePoints::Drop, Record::Sample(s)) = (self.points, &mut record) {
            if let Some(t) = &mut s.timeline {
                t.points = Default::default();
            }
        }
        gather(self.run(id), record);
    }

    /// A line as a reader picked it: a sample's head counts for its run's `RunMeta`
    /// and is not kept.
    pub fn add_parsed(&mut self, parsed: crate::store::Parsed) {
        match parsed {
            crate::store::Parsed::Record(r) => self.add(r),
            crate::store::Parsed::Head(h) => {
                let g = self.run(h.run_id.clone());
                g.first_env.get_or_insert_with(|| h.env());
                g.observed.add(&h.observed);
            }
        }
    }

    fn run(&mut self, id: String) -> &mut Gathered {
        if !self.by_id.contains_key(&id) {
            self.order.push(id.clone());
        }
        self.by_id.entry(id).or_default()
    }

    pub fn finish(mut self) -> Vec<StoredRun> {
        self.order
            .into_iter()
            .map(|id| {
                let mut g = self.by_id.remove(&id).unwrap_or_default();
                g.samples.shrink_to_fit();
                StoredRun {
                    meta: meta_of(id, &g),
                    samples: g.samples,
                }
            })
            .collect()
    }
}

/// Groups the store's records by run, oldest first, without analysing any.
pub fn stored_runs(contents: StoreContents) -> Vec<StoredRun> {
    let mut grouping = Grouping::default();
    for (_, record) in contents.records {
        grouping.add(record);
    }
    grouping.finish()
}

/// The store's runs as lists and filters see them, oldest first: each run's `RunMeta`,
/// from its samples' heads only. No sample is kept, and none is parsed whole: a list
/// costs the store's runs, not its samples.
pub fn read_metas(store: &crate::store::Store) -> std::io::Result<Vec<RunMeta>> {
    let mut grouping = Grouping::new(TimelinePoints::Drop);
    let every = crate::store::Pick::Heads(crate::store::Runs::All);
    store.scan_picked(every, |_, parsed| grouping.add_parsed(parsed))?;
    Ok(grouping.finish().into_iter().map(|r| r.meta).collect())
}

/// The `RunMeta` of one run, from its samples' heads: only its lines are read
/// (`Store::scan_ids`). None when the store has no such run.
pub fn read_meta_of(store: &crate::store::Store, run_id: &str) -> std::io::Result<Option<RunMeta>> {
    let mut grouping = Grouping::new(TimelinePoints::Drop);
    store.scan_ids(&[run_id], true, |_, parsed| grouping.add_parsed(parsed))?;
    Ok(grouping.finish().pop().map(|r| r.meta))
}

/// The runs `metas` names, read whole, in their order there (the store's, as
/// `read_metas` lists them): only their lines are read (`Store::scan_ids`).
pub fn read_these(
    store: &crate::store::Store,
    metas: &[RunMeta],
    points: TimelinePoints,
) -> std::io::Result<Vec<StoredRun>> {
    let ids: Vec<&str> = metas.iter().map(|m| m.run_id.as_str()).collect();
    let mut grouping = Grouping::new(points);
    store.scan_ids(&ids, false, |_, parsed| {
        if let crate::store::Parsed::Record(record) = parsed {
            grouping.add(record)
        }
    })?;
    Ok(grouping.finish())
}

/// Every run in the store, analysed, oldest first.
pub fn runs(contents: StoreContents) -> Vec<RunReport> {
    stored_runs(contents)
        .into_iter()
        .map(StoredRun::analyse)
        .collect()
}

/// The runs the filter selects from the store, and only those, analysed.
pub fn load(
    store: &crate::store::Store,
    filter: &Filter,
    points: TimelinePoints,
) -> std::io::Result<Vec<RunReport>> {
    let selected = select(read_metas(store)?, filter);
    Ok(read_these(store, &selected, points)?
        .into_iter()
        .map(StoredRun::analyse)
        .collect())
}

/// The run id that names the store's newest run (`--run last`).
pub const LAST: &str = "last";

/// One run by id (`LAST` for the newest), analysed; None when the store has no such run.
/// Only that run's lines are parsed: `auto-check` asks after every rep.
pub fn load_run(
    store: &crate::store::Store,
    run_id: &str,
    points: TimelinePoints,
) -> std::io::Result<Option<RunReport>> {
    if run_id == LAST {
        let filter = Filter {
            run: Some(run_id.to_owned()),
            ..Default::default()
        };
        return Ok(load(store, &filter, points)?.pop());
    }
    load_run_where(store, run_id, points, |_| true)
}

/// One run as `load_run` gives it, from its measured samples of reps before `reps` only
/// (a rep still under way would judge arms on unequal footing).
pub fn load_run_to_rep(
    store: &crate::store::Store,
    run_id: &str,
    reps: u32,
) -> std::io::Result<Option<RunReport>> {
    load_run_where(
        store,
        run_id,
        TimelinePoints::Drop,
        |record| !matches!(record, Record::Sample(s) if s.rep >= reps),
    )
}

/// One run by id, analysed from the lines of it that `keep` takes.
fn load_run_where(
    store: &crate::store::Store,
    run_id: &str,
    points: TimelinePoints,
    keep: impl Fn(&Record) -> bool,
) -> std::io::Result<Option<RunReport>> {
    let mut grouping = Grouping::new(points);
    store.scan_run(run_id, |_, record| {
        if keep(&record) {
            grouping.add(record);
        }
    })?;
    Ok(grouping.finish().pop().map(StoredRun::analyse))
}

fn gather(g: &mut Gathered, record: Record) {
    match record {
        Record::Run(r) => g.run = Some(r),
        Record::Sample(mut s) => {
            g.first_env.get_or_insert_with(|| s.env.clone());
            g.observed.add(&s.observed);
            // The arm is derived once here, so no rule downstream re-derives it.
            s.recorded_arm = Some(s.arm());
            g.samples.push(s)
        }
        // A run ends once; the first end recorded is how it ended.
        Record::RunEnd {
            status,
            reason,
            end_reason,
            recorded_at,
            auto_stop,
            ..
        } if g.end.is_none() => {
            g.end = Some(Ended {
                status,
                reason,
                end_reason,
                recorded_at,
                auto_stop,
            })
        }
        Record::RunEnd { .. } => {}
        Record::Machine(m) => g.machine.add(&m),
        Record::Conditions(c) => {
            // One line per block; a repeated block keeps its first.
            if !g.blocks.iter().any(|b| b.block == c.block.block) {
                g.blocks.push(c.block);
            }
        }
        Record::Series(s) => g.series = Some(s.series),
        Record::CeilingAfter { ceilings, .. } => g.ceilings_after = ceilings,
        Record::SinkEvent { .. } => {}
    }
}

fn meta_of(run_id: String, g: &Gathered) -> RunMeta {
    let started = g.run.as_ref();
    let info = started.map(|s| &s.run);
    let none = crate::domain::sample::Environment::default();
    RunMeta {
        env: info
            .map_or(&none, |i| &i.env)
            .or(g.first_env.as_ref().unwrap_or(&none)),
        cpu: started.and_then(|s| s.cpu.clone()),
        host_version: started.map(|s| s.host_version.clone()).unwrap_or_default(),
        started_at: started.map(|s| {
            s.run
                .started_at
                .clone()
                .unwrap_or_else(|| s.recorded_at.clone())
        }),
        finished_at: g.end.as_ref().map(|e| e.recorded_at.clone()),
        status: g
            .end
            .as_ref()
            .map_or(RunState::Running, |e| RunState::Ended(e.status)),
        reason: g.end.as_ref().and_then(|e| e.reason.clone()),
        end_reason: g.end.as_ref().and_then(|e| e.end_reason),
        auto_stop: g.end.as_ref().and_then(|e| e.auto_stop),
        observed: g.observed.verdict(),
        source: info.map(|i| i.source.clone()).unwrap_or_default(),
        plan: info.map(|i| i.plan.clone()),
        sink_ceiling_mbps: started.and_then(|s| s.sink_ceiling_mbps),
        sink_ceiling_range: started.and_then(|s| s.sink_ceiling_range),
        sink_hash_mbps: started.and_then(|s| s.sink_hash_mbps),
        transport_ceilings: started
            .map(|s| s.transport_ceilings.clone())
            .unwrap_or_default(),
        ceilings_after: g.ceilings_after.clone(),
        sink: info.and_then(|i| i.sink),
        machine: g.machine,
        blocks: {
            let mut b = g.blocks.clone();
            b.sort_by_key(|b| b.block);
            b
        },
        interleaved: started.and_then(|s| s.interleaved.clone()),
        series: g.series.clone(),
        run_id,
    }
}

fn build(run: RunMeta, samples: Vec<Sample>) -> RunReport {
    let mut summary = summarise(&samples);
    conditions::summaries(&run, &mut summary, &samples);
    let mut warnings = flag_arms(&mut summary, &samples, &run);
    let protocol_mismatches = protocol_mismatches(&samples);
    warnings.extend(
        protocol_mismatches
            .iter()
            .cloned()
            .map(Warning::ProtocolMismatch),
    );
    let flagged: usize = summary.iter().map(|a| a.timing_flags).sum();
    if flagged > 0 {
        warnings.push(Warning::TimingDisagreement {
            samples: flagged,
            tolerance: TIMING_TOLERANCE,
        });
    }
    let notes: Vec<Note> = browser_time_note(&run, &summary, &samples)
        .into_iter()
        .chain(integrity_reasons(&summary))
        .collect();
    let verdicts = verdicts(&run, &summary, &samples);
    warnings.extend(verdicts.negative_control_warning());
    let (condition_warning, condition_note) = conditions::findings(&run);
    warnings.extend(condition_warning);
    warnings.extend(module_code::changed(&run));
    let notes: Vec<Note> = condition_note.into_iter().chain(notes).collect();
    let mut report = RunReport {
        phases: phases::by_arm_in(summary.iter().map(|a| &a.arm), &samples, &|s| {
            conditions::of_sample(&run, s)
        }),
        encrypted: encrypted_rows(&summary, &samples),
        summary,
        samples,
        run,
        comparisons: verdicts.comparisons,
        negative_control: verdicts.negative_control,
        warnings,
        notes,
        control: verdicts.control,
        transports: verdicts.transports,
        protocol_mismatches,
    };
    report.warnings.extend(auto_budget::budget_warning(&report));
    link::set_shares(&mut report);
    report.notes.extend(link::notes(&report));
    report
}

/// Per arm: sink-bound and ceiling checks, hash-bound uploads, timing flags.
fn flag_arms(summary: &mut [ArmSummary], samples: &[Sample], run: &RunMeta) -> Vec<Warning> {
    let mut warnings = Vec::new();
    for arm in summary {
        // The ceiling is one upload of the run's size: it says nothing about downloads,
        // parallel aggregates or decrypting chunks.
        if let (false, Some(median)) = (arm.arm.is_workload(), arm.median_mbps) {
            sink_checks(arm, median, run, &mut warnings);
        }
        let of_arm = || samples.iter().filter(|s| s.is_of(&arm.arm));
        let hash_bound = of_arm().filter(|s| s.hash_bound).count();
        if hash_bound > 0 {
            warnings.push(Warning::HashBound {
                arm: arm.arm.label(),
                samples: hash_bound,
            });
        }
        arm.timing_flags = of_arm().filter(|s| timing_disagrees(s)).count();
    }
    warnings
}

/// A run's comparisons: arms against their baselines, the control's slowdowns, the
/// transports, and the negative control.
struct Verdicts {
    comparisons: Vec<Comparison>,
    control: Vec<ControlRow>,
    transports: Vec<Comparison>,
    negative_control: Option<Comparison>,
}

impl Verdicts {
    /// Identical arms that came out different: the run's other verdicts cannot stand.
    fn negative_control_warning(&self) -> Option<Warning> {
        let nc = self
            .negative_control
            .as_ref()
            .filter(|c| c.verdict.is_difference())?;
        Some(Warning::NegativeControlFailed {
            arm: nc.baseline.arm().label(),
            verdict: nc.verdict,
            horizon: nc.horizon,
            ratio: nc.ratio,
            ci_low: nc.ci_low,
            ci_high: nc.ci_high,
        })
    }
}

fn verdicts(run: &RunMeta, summary: &[ArmSummary], samples: &[Sample]) -> Verdicts {
    let plan = run.plan.as_ref();
    let horizon = plan
        .and_then(|p| p.horizon)
        .unwrap_or(compare::DEFAULT_HORIZON);
    let mut control = control_rows(samples, horizon);
    let mut comparisons = if control.is_empty() {
        compare_arms(
            run,
            summary,
            samples,
            horizon,
            plan.and_then(crate::domain::plan::Plan::baseline_module),
        )
    } else {
        Vec::new()
    };
    let mut transports = compare_transports(run, summary, samples, horizon);
    if plan.is_some_and(|p| p.auto.is_some()) {
        // An --auto run's verdicts are only those its stopping rule settled.
        let settled = |v: Vec<Comparison>| v.into_iter().map(Comparison::as_auto_verdict).collect();
        comparisons = settled(comparisons);
        transports = settled(transports);
        for row in &mut control {
            row.slowdown = row.slowdown.take().map(Comparison::as_auto_verdict);
        }
    }
    // Joined on the arm: the repeated arm's comparison with its own body.
    let negative_control = comparisons.iter().find(|c| c.arm.arm().repeat).cloned();
    Verdicts {
        comparisons,
        control,
        transports,
        negative_control,
    }
}

/// Sink-bound, a ceiling measured too low to trust, and a hasher slower than the arm.
fn sink_checks(arm: &mut ArmSummary, median: f64, run: &RunMeta, warnings: &mut Vec<Warning>) {
    // Each transport has its own sink and its own ceiling.
    let (ceiling, range) = run.ceiling_of(arm.arm.travels_over());
    if let Some(ceiling) = ceiling {
        let fastest = range.map_or(ceiling, |(_, hi)| hi);
        let (arm_name, median_mbps, ceiling_mbps) = (arm.arm.label(), median, ceiling);
        if median > fastest {
            warnings.push(Warning::CeilingDisturbed {
                arm: arm_name,
                median_mbps,
                ceiling_mbps,
            });
        } else {
            // Across a real link the ceiling is the link's, not the sink's: a note per
            // arm says whether the link was the limit (`link.rs`).
            arm.sink_bound = !run.is_remote() && median >= SINK_BOUND_SHARE * ceiling;
            if arm.sink_bound {
                warnings.push(Warning::SinkBound {
                    arm: arm_name,
                    median_mbps,
                    ceiling_mbps,
                });
            }
        }
    }
    if let Some(hash_mbps) = run.sink_hash_mbps.filter(|&h| h < median) {
        warnings.push(Warning::HashSlowerThanArm {
            arm: arm.arm.label(),
            hash_mbps,
            median_mbps: median,
        });
    }
}

/// The page's and the sink's times do not fit together. The sink's view of a request
/// lies inside the page's span (the reply leaves at the last byte), so a sink time over
/// the page time by more than the tolerance is a measurement error. Samples stored
/// before the sink reported its request time came from a sink that replied only after
/// hashing: for those, a page time far above the sink's is the old flag.
pub fn timing_disagrees(s: &Sample) -> bool {
    if s.status != crate::domain::sample::SampleStatus::Ok {
        return false;
    }
    match (s.page_ms, s.sink_request_ms, s.sink_ms) {
        (Some(p), Some(r), _) if p > 0.0 => (r - p) / p > TIMING_TOLERANCE,
        (Some(p), None, Some(k)) if p > 0.0 => (p - k).abs() / p > TIMING_TOLERANCE,
        _ => false,
    }
}

/// Where each arm's page time went outside the sink's record of the request (its
/// headers to its last byte): per arm (per arm and condition in a run measured in more
/// than one), the median page time less that record, split into before the headers
/// reached the sink and after the last byte where the uploads have phases.
fn browser_time_note(run: &RunMeta, summary: &[ArmSummary], samples: &[Sample]) -> Option<Note> {
    let one = |a: &ArmSummary, condition: Option<&crate::domain::conditions::Condition>| {
        let keep =
            |s: &Sample| condition.is_none() || conditions::of_sample(run, s).as_ref() == condition;
        Some(findings::BrowserTime {
            arm: a.arm.label(),
            condition: condition.cloned(),
            browser_ms: a.browser_ms?,
            page_ms: a.page_ms?,
            split: phases::outside_of_arm(samples, &a.arm, &keep),
        })
    };
    let arms: Vec<findings::BrowserTime> = summary
        .iter()
        .flat_map(|a| match a.by_condition.as_slice() {
            [] => vec![one(a, None)],
            each => each
                .iter()
                .map(|c| one(&c.figures, Some(&c.condition)))
                .collect(),
        })
        .flatten()
        .collect();
    (!arms.is_empty()).then_some(Note::BrowserTime { arms })
}

fn control_rows(samples: &[Sample], horizon: f64) -> Vec<ControlRow> {
    // The arm both halves upload: the sample's arm without its condition.
    let mut arms: Vec<Arm> = Vec::new();
    for s in samples {
        let arm = s.arm();
        if arm.condition.is_some() {
            let bare = Arm {
                condition: None,
                ..arm
            };
            if !arms.contains(&bare) {
                arms.push(bare);
            }
        }
    }
    arms.into_iter()
        .map(|arm| {
            let half = |cond: Condition| Arm {
                condition: Some(cond),
                ..arm.clone()
            };
            let (attached_arm, detached_arm) =
                (half(Condition::Attached), half(Condition::Detached));
            let (attached, detached) = (
                ok_speeds(samples, &attached_arm),
                ok_speeds(samples, &detached_arm),
            );
            ControlRow {
                attached_median_mbps: crate::stats::median(&attached),
                detached_median_mbps: crate::stats::median(&detached),
                slowdown: compare::compare(
                    Side::Arm { arm: detached_arm },
                    &detached,
                    Side::Arm { arm: attached_arm },
                    &attached,
                    horizon,
                ),
                arm,
            }
        })
        .collect()
}

fn encrypted_rows(summary: &[ArmSummary], samples: &[Sample]) -> Vec<EncryptedRow> {
    summary
        .iter()
        .filter_map(|a| {
            let ArmKind::Encrypted {
                chunk_bytes,
                schedule,
            } = a.arm.kind
            else {
                return None;
            };
            let arm: Vec<&Sample> = samples.iter().filter(|s| s.is_of(&a.arm)).collect();
            let per = |figure: fn(&Sample) -> Option<f64>| {
                crate::stats::median(&arm.iter().filter_map(|s| figure(s)).collect::<Vec<_>>())
            };
            let (client_ms, put_ms) = (per(|s| s.client_ms), per(|s| s.put_ms));
            let bad_tags: u64 = arm
                .iter()
                .filter_map(|s| s.chunk_tally.map(|t| t.bad_tags()))
                .sum();
            Some(EncryptedRow {
                arm: a.arm.label(),
                chunk_bytes,
                schedule: schedule.as_str().to_owned(),
                median_mbps: a.median_mbps,
                pipelining_ceiling: client_ms
                    .zip(put_ms)
                    .filter(|(_, p)| *p > 0.0)
                    .map(|(c, p)| c / p),
                client_ms,
                put_ms,
                chunks_with_bad_tags: bad_tags,
            })
        })
        .collect()
}

/// Every arm against its baseline (`Arm::baseline`), where the run has both; a
/// workload module against the plan's baseline module (`Plan::baseline_module`).
fn compare_arms(
    run: &RunMeta,
    summary: &[ArmSummary],
    samples: &[Sample],
    horizon: f64,
    baseline_module: Option<&crate::domain::arm::ModuleName>,
) -> Vec<Comparison> {
    let module_baseline = summary.iter().map(|s| &s.arm).find(|a| {
        a.condition.is_none()
            && matches!(&a.kind, ArmKind::Module { name, .. } if Some(name) == baseline_module)
    });
    compare_against(run, summary, samples, horizon, |a| {
        match (&a.kind, module_baseline) {
            (ArmKind::Module { .. }, Some(base)) if a != base && a.condition.is_none() => {
                vec![base.clone()]
            }
            _ => a.baseline().into_iter().collect(),
        }
    })
}

/// Each arm against every arm `baselines` names that the run has, joined on the arm.
fn compare_against(
    run: &RunMeta,
    summary: &[ArmSummary],
    samples: &[Sample],
    horizon: f64,
    baselines: impl Fn(&Arm) -> Vec<Arm>,
) -> Vec<Comparison> {
    let mut out = Vec::new();
    for a in summary {
        for wanted in baselines(&a.arm) {
            if !summary.iter().any(|b| b.arm == wanted) {
                continue;
            }
            out.extend(conditions::compare_pair(
                run,
                samples,
                (&a.arm, &wanted),
                horizon,
            ));
        }
    }
    out
}

/// Uploads of a TLS arm that arrived over another protocol than the arm's (a browser
/// that would not speak h2, say): its figures describe that protocol, not the arm's.
fn protocol_mismatches(samples: &[Sample]) -> Vec<ProtocolMismatch> {
    let mut seen: Vec<ProtocolMismatch> = Vec::new();
    for s in samples {
        let arm = s.arm();
        let (Some(transport), Some(got)) = (arm.transport, s.protocol.as_deref()) else {
            continue;
        };
        if got == transport.protocol() {
            continue;
        }
        let label = arm.label();
        match seen
            .iter_mut()
            .find(|m| m.arm == label && m.arrived_over == got)
        {
            Some(m) => m.uploads += 1,
            None => seen.push(ProtocolMismatch {
                arm: label,
                transport,
                arrived_over: got.to_owned(),
                uploads: 1,
            }),
        }
    }
    seen
}

/// Every arm over a TLS transport against the same upload over each nearer transport
/// the run has (`Transport::baselines`).
fn compare_transports(
    run: &RunMeta,
    summary: &[ArmSummary],
    samples: &[Sample],
    horizon: f64,
) -> Vec<Comparison> {
    compare_against(run, summary, samples, horizon, Arm::transport_baselines)
}

/// The throughput of an arm's intact uploads.
fn ok_speeds(samples: &[Sample], arm: &Arm) -> Vec<f64> {
    samples
        .iter()
        .filter(|s| s.is_of(arm) && s.status == crate::domain::sample::SampleStatus::Ok)
        .filter_map(|s| s.mbps)
        .collect()
}

/// Why an arm's bytes did not arrive intact, for every case the tool can explain.
fn integrity_reasons(summary: &[ArmSummary]) -> impl Iterator<Item = Note> + '_ {
    summary.iter().filter_map(|a| {
        Some(Note::IntegrityReason {
            arm: a.arm.label(),
            integrity: a.integrity.status(),
            why: a.integrity.why(&a.arm)?,
        })
    })
}

/// Which runs a report covers.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    /// A run id, or "last".
    pub run: Option<String>,
    pub browser: Option<String>,
    /// RFC 3339 timestamp or date (YYYY-MM-DD); runs started before it are left out.
    pub since: Option<String>,
}

impl AsRef<RunMeta> for RunMeta {
    fn as_ref(&self) -> &RunMeta {
        self
    }
}

impl AsRef<RunMeta> for StoredRun {
    fn as_ref(&self) -> &RunMeta {
        &self.meta
    }
}

impl AsRef<RunMeta> for RunReport {
    fn as_ref(&self) -> &RunMeta {
        &self.run
    }
}

/// The runs a filter selects, from anything that knows its run's `RunMeta`.
pub fn select<R: AsRef<RunMeta>>(mut runs: Vec<R>, filter: &Filter) -> Vec<R> {
    if let Some(b) = &filter.browser {
        let b = b.to_lowercase();
        runs.retain(|r| r.as_ref().env.browser.to_lowercase().contains(&b));
    }
    if let Some(since) = filter.since.as_deref().and_then(parse_since) {
        runs.retain(|r| {
            r.as_ref()
                .started_at
                .as_deref()
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                .is_some_and(|t| t >= since)
        });
    }
    match filter.run.as_deref() {
        Some(LAST) => runs.into_iter().last().into_iter().collect(),
        Some(id) => runs
            .into_iter()
            .filter(|r| r.as_ref().run_id == id)
            .collect(),
        None => runs,
    }
}

/// `--since`: an RFC 3339 time, or a date (midnight UTC). None when it is neither.
pub fn parse_since(s: &str) -> Option<chrono::DateTime<chrono::FixedOffset>> {
    chrono::DateTime::parse_from_rfc3339(s).ok().or_else(|| {
        let date = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()?;
        Some(date.and_hms_opt(0, 0, 0)?.and_utc().fixed_offset())
    })
}

/// The scale of the run's chart, from every arm and its own sink's ceiling.
pub fn chart_scale(r: &RunReport) -> chart_scale::ChartScale {
    let reach: Vec<_> = r
        .summary
        .iter()
        .map(|a| chart_scale::Reach::of(a, r.run.ceiling_of(a.arm.travels_over()).0))
        .collect();
    chart_scale::scale(&reach)
}

#[cfg(test)]
mod tests;

/// Reports of made-up records, for the tests of this module and the ones above it.
#[cfg(test)]
pub(crate) mod tests_support {
    use crate::domain::sample::Sample;
    use crate::store::tests_support::{contents_of, run_record, sample};
    use crate::store::{Record, StoreContents};

    /// The one run `records` hold, as every report computes it.
    pub(crate) fn report_of(records: Vec<Record>) -> super::RunReport {
        super::runs(contents_of(records))
            .pop()
            .expect("the records hold a run")
    }

    /// Run "r" with Blob at 70% of a 1000 Mbps sink ceiling, Uint8Array far below it.
    pub(crate) fn sink_bound_run() -> super::RunReport {
        let samples = vec![
            sample("r", "Uint8Array", 0, 100.0),
            sample("r", "Uint8Array", 1, 110.0),
            sample("r", "Blob", 0, 700.0),
            sample("r", "Blob", 1, 720.0),
        ];
        super::runs(contents(Some(1000.0), samples)).pop().unwrap()
    }

    /// Run "r" (Firefox 153, a sink ceiling of `ceiling`) and these samples.
    pub(crate) fn contents(ceiling: Option<f64>, samples: Vec<Sample>) -> StoreContents {
        let mut run = run_record("r");
        if let Record::Run(crate::store::RunRecord {
            run: info,
            sink_ceiling_mbps,
            ..
        }) = &mut run
        {
            info.env.browser = "Firefox".into();
            info.env.browser_version = "153".into();
            info.started_at = Some("2026-11-30T10:00:00Z".into());
            *sink_ceiling_mbps = ceiling;
        }
        let mut records = vec![run];
        records.extend(samples.into_iter().map(Record::Sample));
        contents_of(records)
    }
}
