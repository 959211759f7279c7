//! `unobserved run`: check everything asked for, then launch, then report. Nothing is
//! launched until the plan, the output paths and the sink have been checked.

use super::args::{FailOn, RunArgs, WorkloadKind};
use super::exit;
use super::matrix_auto;
use super::usage::flag;
use crate::domain::arm::ModuleName;
use crate::domain::flags::FlagError;
use crate::domain::plan::{
    AutoBudget, DownloadWorkload, EncryptedWorkload, ParallelWorkload, Plan, Workloads,
};
use crate::domain::sample::SampleStatus;
use crate::domain::series::{Series, SeriesRecord};
use crate::domain::sink_url::SinkUrl;
use crate::domain::workload::ModuleRef;
use crate::export::{human_bytes, json::Json, table::Table, Exporter};
use crate::launch::{self, RunOptions};
use crate::modules::Loaded;
use crate::protocol::job::JobModule;
use crate::report::{across, RunReport};
use crate::sink::ceiling::Client;
use crate::sink::pinned::ReachError;
use crate::store::Record;
use anyhow::{Context, Result};
use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

/// Plans estimated longer than this get a warning before they start.
const LONG_PLAN: Duration = Duration::from_secs(10 * 60);

pub fn execute(a: RunArgs) -> Result<i32> {
    let (plan, targets, sink_trust) = checked(&a)?;
    let a = RunArgs { sink_trust, ..a };
    let colour = std::io::stdout().is_terminal();
    let horizon = plan
        .horizon
        .unwrap_or(crate::stats::compare::DEFAULT_HORIZON);
    let mut m = Matrix::default();
    match plan.auto.filter(|_| targets.len() > 1) {
        // Builds of one browser take turns rep by rep, in one go.
        _ if a.browser_path.len() > 1 => m.run_interleaved(&a, &targets, &plan, horizon, colour)?,
        // --runs N: one browser's plan N times in a row, tagged as a series.
        _ if a.runs > 1 => m.run_series(&a, &targets[0], &plan, colour)?,
        // Across browsers, --auto adds rounds until the cross-browser ratios settle.
        Some(budget) => m.run_auto(&a, &targets, &plan, budget, horizon, colour)?,
        None => m.run_each(&a, &targets, &plan, horizon, colour)?,
    }
    let Matrix {
        done,
        launches,
        missing,
    } = m;
    if let Some(path) = &a.json {
        write_json(path, launches, &done)?;
    }
    // Every finished run is judged: each prints what --fail-on found in it, and what
    // --fail-if-slower found of its modules against the baseline.
    let fail_codes: Vec<i32> = done
        .iter()
        .map(|r| fail_on(&a, r).max(slower_gate(&a, r)))
        .collect();
    Ok(exit_code(&fail_codes, !missing.is_empty()))
}

/// The plan and the browsers to run, once everything asked for has been checked:
/// nothing is launched before the plan, the output paths and the sink are good; and
/// how a throwaway profile trusts a pinned remote sink's certificate.
fn checked(a: &RunArgs) -> Result<(Plan, Vec<Target>, Option<crate::platform::local_tls::Pins>)> {
    let plan = plan_of(a)?;
    let targets = targets_of(a)?;
    if a.runs > 1 && targets.len() > 1 {
        return Err(flag(FlagError::RunsOfOneBrowser));
    }
    check_output(a.json.as_deref())?;
    check_extension_dir(a.extension_dir.as_deref())?;
    let trust = match &a.sink_url {
        Some(url) => probe_sink(url)?,
        None => None,
    };
    warn_about(&plan, a);
    Ok((plan, targets, trust))
}

/// `--json`: every finished run with the command line each browser was launched with.
fn write_json(path: &Path, launches: Vec<serde_json::Value>, done: &[RunReport]) -> Result<()> {
    let text = Json {
        launch: Some(serde_json::Value::Array(launches)),
    }
    .render(done);
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// The exit code from each finished run's --fail-on code: the worst of them. A browser
/// that was missing makes it BROWSER_MISSING only when nothing worse happened, so a
/// matrix with a skipped browser does not read as a clean pass.
fn exit_code(fail_codes: &[i32], any_missing: bool) -> i32 {
    match fail_codes.iter().max() {
        None => exit::BROWSER_MISSING,
        Some(&exit::OK) if any_missing => exit::BROWSER_MISSING,
        Some(&code) => code,
    }
}

/// (browser, binary): what one run launches.
type Target = (String, Option<std::path::PathBuf>);

/// What the runs of one `unobserved run` produced, browser by browser.
#[derive(Default)]
struct Matrix {
    done: Vec<RunReport>,
    launches: Vec<serde_json::Value>,
    missing: Vec<String>,
}

impl Matrix {
    /// Runs one browser and prints its table. In a matrix a missing browser is skipped
    /// (None); alone, it is the error.
    fn run_one(
        &mut self,
        a: &RunArgs,
        (browser, path): &Target,
        plan: &Plan,
        browsers: usize,
        colour: bool,
    ) -> Result<Option<RunReport>> {
        let outcome = launch::run(options_of(a, (browser, path), plan));
        let outcome = match outcome {
            Err(e) if browsers > 1 && is_missing(&e) => {
                if !self.missing.contains(browser) {
                    eprintln!("skipped {browser}: {e:#}");
                    self.missing.push(browser.clone());
                }
                return Ok(None);
            }
            other => other?,
        };
        Ok(Some(self.finished(outcome, colour)))
    }

    /// A finished run: its table printed, its launch and report kept.
    fn finished(&mut self, outcome: launch::RunOutcome, colour: bool) -> RunReport {
        print!(
            "{}",
            Table { colour }.render(std::slice::from_ref(&outcome.report))
        );
        self.launches.push(serde_json::json!({
            "browser_path": outcome.browser_path,
            "command": outcome.launch_command,
        }));
        self.done.push(outcome.report.clone());
        outcome.report
    }

    /// Builds of one browser (`--browser-path` twice or more), started at once and
    /// taking turns rep by rep: their comparison is as within a run. Fixed reps: each
    /// build's own `--auto` would stop it at its own time, and the others would go on
    /// alone, no longer interleaved.
    fn run_interleaved(
        &mut self,
        a: &RunArgs,
        targets: &[Target],
        plan: &Plan,
        horizon: f64,
        colour: bool,
    ) -> Result<()> {
        let plan = Plan {
            auto: None,
            ..plan.clone()
        };
        let opts = targets
            .iter()
            .map(|(b, p)| RunOptions {
                // One progress bar per build would draw over the other's.
                quiet: true,
                ..options_of(a, (b, p), &plan)
            })
            .collect();
        if !a.quiet {
            eprintln!(
                "{} builds at once, taking turns rep by rep ({} reps each)…",
                targets.len(),
                plan.reps
            );
        }
        // Every build that finished is shown (and stored) even when another failed;
        // the first failure is the command's error.
        let mut failed = None;
        for outcome in launch::interleaved::run(opts)? {
            match outcome {
                Ok(outcome) => {
                    self.finished(outcome, colour);
                }
                Err(e) => failed = failed.or(Some(e)),
            }
        }
        print_matrix(&self.done, horizon, colour);
        failed.map_or(Ok(()), Err)
    }

    /// `--runs N`: the plan N times in a row, each run tagged with the series once it is
    /// complete (a run that fails ends the series with its error).
    fn run_series(
        &mut self,
        a: &RunArgs,
        target: &Target,
        plan: &Plan,
        colour: bool,
    ) -> Result<()> {
        let (_, store) = launch::writable_store()?;
        let group = crate::domain::run::new_run_id();
        for index in 0..a.runs {
            if !a.quiet {
                eprintln!("series {group}: run {} of {}", index + 1, a.runs);
            }
            let report = self
                .run_one(a, target, plan, 1, colour)?
                .expect("one browser alone is not skipped");
            let series = Series {
                group: group.clone(),
                index,
                runs: a.runs,
            };
            let tag = SeriesRecord {
                run_id: report.run.run_id.clone(),
                series: series.clone(),
                recorded_at: crate::store::records::now(),
            };
            store.append(&[Record::Series(tag)]).with_context(|| {
                format!(
                    "cannot tag run {} in {}",
                    report.run.run_id,
                    store.path().display()
                )
            })?;
            if let Some(done) = self.done.last_mut() {
                done.run.series = Some(series);
            }
        }
        println!(
            "series {group}: {} runs; set it against another series with `unobserved compare series:last~1 series:last`",
            a.runs
        );
        Ok(())
    }

    /// Each browser once with the whole plan, then the browsers side by side.
    fn run_each(
        &mut self,
        a: &RunArgs,
        targets: &[Target],
        plan: &Plan,
        horizon: f64,
        colour: bool,
    ) -> Result<()> {
        for target in targets {
            self.run_one(a, target, plan, targets.len(), colour)?;
        }
        print_matrix(&self.done, horizon, colour);
        Ok(())
    }

    /// --auto across browsers: rounds of every browser until the cross-browser ratios
    /// settle or the budget is spent, then each browser's rounds pooled side by side.
    fn run_auto(
        &mut self,
        a: &RunArgs,
        targets: &[Target],
        plan: &Plan,
        budget: AutoBudget,
        horizon: f64,
        colour: bool,
    ) -> Result<()> {
        let started = std::time::Instant::now();
        let mut per_browser: Vec<Vec<RunReport>> = vec![Vec::new(); targets.len()];
        let mut reps_done = 0;
        let stop = loop {
            let Some(round) = matrix_auto::next_round(plan, budget, reps_done) else {
                break crate::domain::plan::AutoStop::BudgetReps;
            };
            for (i, target) in targets.iter().enumerate() {
                if let Some(report) = self.run_one(a, target, &round, targets.len(), colour)? {
                    per_browser[i].push(report);
                }
            }
            // A round of a plan of loads takes a whole block of each (Plan::minimum_reps).
            reps_done += round.minimum_reps();
            let compared = matrix_auto::judge(&per_browser, horizon);
            if let Some(stop) =
                matrix_auto::stop_after(compared.as_ref(), budget, reps_done, started)
            {
                break stop;
            }
            if !a.quiet {
                let next = matrix_auto::next_round(plan, budget, reps_done);
                eprintln!(
                    "auto: {reps_done} reps per browser, not settled yet; another round of {} each",
                    next.as_ref().map_or(0, Plan::minimum_reps)
                );
            }
        };
        let pooled: Vec<RunReport> = per_browser
            .iter()
            .filter_map(|runs| crate::report::pooled::pool(runs))
            .collect();
        print_matrix(&pooled, horizon, colour);
        println!(
            "auto: {} after {reps_done} reps per browser",
            crate::export::words::auto_stop(stop)
        );
        Ok(())
    }
}

/// How one target is run.
fn options_of(
    a: &RunArgs,
    (browser, path): (&String, &Option<std::path::PathBuf>),
    plan: &Plan,
) -> RunOptions {
    RunOptions {
        browser: browser.clone(),
        browser_path: path.clone(),
        plan: plan.clone(),
        headed: a.headed,
        connect_timeout: Duration::from_secs(a.connect_timeout),
        timeout: a.timeout.map(Duration::from_secs),
        extension_dir: a.extension_dir.clone(),
        quiet: a.quiet,
        keep_profile: a.keep_profile,
        sink_url: a.sink_url.clone(),
        sink_trust: a.sink_trust.clone(),
        turns: None,
        modules: job_modules(a),
    }
}

/// Browsers side by side, each against the first, when there are two or more.
fn print_matrix(reports: &[RunReport], horizon: f64, colour: bool) {
    if reports.len() < 2 {
        return;
    }
    let labels = crate::export::compared::browser_labels(reports);
    let compared = across::compare_runs(reports, horizon);
    println!("\n{}", Table { colour }.render_compared(&compared, &labels));
}

/// (browser, binary) for each run: one per --browser, or one per --browser-path of a
/// single browser.
fn targets_of(a: &RunArgs) -> Result<Vec<Target>> {
    for b in &a.browser {
        if crate::launch::browsers::by_key(b).is_none() {
            return Err(flag(super::usage::unknown_browser(b)));
        }
    }
    match (a.browser.as_slice(), a.browser_path.as_slice()) {
        (browsers, []) => Ok(browsers.iter().map(|b| (b.clone(), None)).collect()),
        // WebKit runs through a served page that does not wait for its turn: two builds
        // would upload at once, so they are refused rather than called interleaved.
        ([browser], [_, _, ..])
            if crate::launch::browsers::by_key(browser).is_some_and(|l| l.key == "webkit") =>
        {
            Err(flag(FlagError::WebkitOnePath))
        }
        ([browser], paths) => Ok(paths
            .iter()
            .map(|p| (browser.clone(), Some(p.clone())))
            .collect()),
        _ => Err(flag(FlagError::PathNeedsOneBrowser)),
    }
}

fn is_missing(e: &anyhow::Error) -> bool {
    matches!(
        e.downcast_ref::<launch::RunError>(),
        Some(launch::RunError::BrowserMissing(_))
    )
}

/// The plan the flags describe, or why they cannot work.
fn plan_of(a: &RunArgs) -> Result<Plan> {
    check_cli_only(a)?;
    let modules = modules_of(a)?;
    let plan = Plan {
        control: a.control,
        negative_control: a.negative_control,
        workloads: workloads_of(a),
        modules: modules
            .iter()
            .map(|m| ModuleRef::named(m.name.clone()))
            .collect(),
        baseline: baseline_of(a)?,
        module_timeout_secs: a.module_timeout,
        ..a.plan.plan(!a.workloads.is_empty() || !modules.is_empty())
    };
    super::plan_args::checked(Plan {
        transports: match &a.sink_url {
            // A remote sink's transport is its URL's.
            Some(url) if url.is_tls() => vec![url.transport()],
            _ => plan.transports.clone(),
        },
        ..plan
    })
}

/// Every `--script`, read and checked now, before any browser starts: the file exists
/// and is a workload module of the contract this host speaks.
fn modules_of(a: &RunArgs) -> Result<Vec<Loaded>> {
    let mut loaded = Vec::new();
    for s in &a.scripts {
        let m = crate::modules::load(&s.name, &s.path).map_err(|e| {
            flag(FlagError::Script {
                error: e.to_string(),
            })
        })?;
        loaded.push(m);
    }
    Ok(loaded)
}

fn baseline_of(a: &RunArgs) -> Result<Option<ModuleName>> {
    let Some(name) = &a.baseline else {
        return Ok(None);
    };
    if a.scripts.is_empty() {
        return Err(flag(FlagError::BaselineWithoutScript));
    }
    name.parse::<ModuleName>().map(Some).map_err(|e| {
        flag(FlagError::Baseline {
            error: e.to_string(),
        })
    })
}

/// Where the host reads each `--script`: its absolute path (the host runs elsewhere).
fn job_modules(a: &RunArgs) -> Vec<JobModule> {
    a.scripts
        .iter()
        .map(|s| JobModule {
            name: s.name.clone(),
            path: std::fs::canonicalize(&s.path).unwrap_or_else(|_| s.path.clone()),
        })
        .collect()
}

/// What only the command line can get wrong: the browsers, --sink-url, and flags of a
/// workload that was not asked for. The plan itself is Plan::validate's.
fn check_cli_only(a: &RunArgs) -> Result<()> {
    // A missing binary is a missing browser (exit 3); a folder is a mistake in the flag.
    if let Some(dir) = a.browser_path.iter().find(|p| p.is_dir()) {
        return Err(flag(FlagError::BrowserPathIsFolder { path: dir.clone() }));
    }
    // --sink-url's shape, and an https:// one's pin, are checked as it is parsed
    // (domain::sink_url::SinkUrl); its certificate before launch (probe_sink).
    if let Some(url) = &a.sink_url {
        check_sink_url(a, url)?;
    }
    if a.sink_url.is_some() && !a.scripts.is_empty() {
        return Err(flag(FlagError::ScriptNeedsLocalSink));
    }
    for browser in &a.browser {
        if a.control
            && crate::launch::browsers::by_key(browser).is_some_and(|b| {
                b.family() != Some(unobserved_installer::manifest::Family::Chromium)
            })
        {
            return Err(flag(FlagError::ControlNeedsChromium {
                browser: browser.clone(),
            }));
        }
    }
    let page_engine = a
        .browser
        .iter()
        .filter_map(|b| crate::launch::browsers::by_key(b))
        .find(|b| b.engine == crate::launch::browsers::Engine::Page);
    if let Some(b) = page_engine {
        if a.sink_url.is_some()
            || !a.workloads.is_empty()
            || a.extension_dir.is_some()
            || !a.scripts.is_empty()
        {
            return Err(flag(FlagError::PageEngineFlags {
                browser: b.key.to_owned(),
            }));
        }
    }
    if a.streams.is_some() && !a.workloads.contains(&WorkloadKind::Parallel) {
        return Err(flag(FlagError::StreamsWithoutParallel));
    }
    Ok(())
}

/// What a remote sink's URL rules out: another transport than its own, workloads over
/// TLS, and Firefox on a plain sink off loopback, whose extension page would upgrade
/// every upload to https:// (SinkUrl::gecko_upgrades_to_https) and never reach it.
fn check_sink_url(a: &RunArgs, url: &SinkUrl) -> Result<()> {
    if a.plan.transport.iter().any(|&t| t != url.transport()) {
        return Err(flag(FlagError::NotTheSinksTransport {
            transport: url.transport(),
        }));
    }
    if url.is_tls() && !a.workloads.is_empty() {
        return Err(flag(FlagError::WorkloadsOverTls));
    }
    let gecko = a.browser.iter().find(|b| {
        crate::launch::browsers::by_key(b)
            .is_some_and(|b| b.family() == Some(unobserved_installer::manifest::Family::Firefox))
    });
    if let Some(browser) = gecko.filter(|_| url.gecko_upgrades_to_https()) {
        return Err(flag(FlagError::GeckoUpgrades {
            url: url.to_string(),
            browser: browser.clone(),
        }));
    }
    Ok(())
}

fn workloads_of(a: &RunArgs) -> Workloads {
    let has = |w: WorkloadKind| a.workloads.contains(&w);
    Workloads {
        encrypted: has(WorkloadKind::Encrypted).then(|| EncryptedWorkload {
            file_bytes: a.file_size,
            chunk_sizes: a.chunk_sizes.clone(),
        }),
        download: has(WorkloadKind::Download).then_some(DownloadWorkload { bytes: a.plan.size }),
        parallel: has(WorkloadKind::Parallel).then(|| ParallelWorkload {
            bytes: a.plan.size,
            streams: a.streams.clone().unwrap_or_else(|| vec![1, 2, 4, 8]),
        }),
    }
}

/// `--extension-dir` must hold an extension (its manifest.json) before a browser runs.
fn check_extension_dir(dir: Option<&Path>) -> Result<()> {
    match dir {
        Some(d) if !d.join("manifest.json").is_file() => {
            Err(flag(FlagError::ExtensionDirWithoutManifest {
                dir: d.into(),
            }))
        }
        _ => Ok(()),
    }
}

/// `--json`'s folder must exist and take a file before the browser runs.
fn check_output(path: Option<&Path>) -> Result<()> {
    let Some(path) = path else { return Ok(()) };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    tempfile::NamedTempFile::new_in(dir).map(drop).map_err(|e| {
        flag(FlagError::JsonUnwritable {
            path: path.into(),
            error: e.to_string(),
        })
    })
}

/// A sink given with --sink-url must answer before any browser starts: a typo must not
/// read as "the browser cannot upload". An https:// one must present the certificate
/// its URL pins (else exit 2, nothing launched); the throwaway profile then trusts that
/// certificate (the returned pins) and no other.
fn probe_sink(url: &SinkUrl) -> Result<Option<crate::platform::local_tls::Pins>> {
    if crate::platform::net::resolve(url).map_or(true, |a| a.is_empty()) {
        return Err(flag(FlagError::SinkUnresolvable {
            url: url.to_string(),
            authority: url.authority().to_string(),
        }));
    }
    let unreachable = |why: String| {
        anyhow::anyhow!("the sink at {url} does not answer ({why}); nothing was launched. Is `unobserved sink` running there, and is the URL exactly what it printed?")
    };
    let (mut client, presented) = match Client::connect_sink(url) {
        Ok(connected) => connected,
        Err(e @ (ReachError::WrongCertificate { .. } | ReachError::OtherTransport { .. })) => {
            return Err(flag(FlagError::SinkRefused {
                origin: url.origin().to_string(),
                error: e.to_string(),
            }))
        }
        Err(ReachError::Io(e)) => return Err(unreachable(e.to_string())),
    };
    let reply = client
        .put(url.path(), 16, &[0u8; 16])
        .map_err(|e| unreachable(e.to_string()))?;
    if reply.status != 200 {
        return Err(unreachable(format!("it answered HTTP {}", reply.status)));
    }
    Ok(presented.map(|p| p.pins()))
}

/// Heads-up before a long or statistically hopeless plan starts.
fn warn_about(plan: &Plan, a: &RunArgs) {
    if a.quiet {
        return;
    }
    // Auto-sampled, only the first reps are certain: the time budget bounds the rest.
    let first = match plan.auto {
        Some(_) => Plan {
            auto: None,
            ..plan.clone()
        }
        .measured_uploads(),
        None => plan.measured_uploads(),
    };
    let uploads = first + u64::from(plan.warmup) * plan.bodies.len() as u64;
    // At 1 Gbit/s plus 50 ms per upload: a slow but real browser.
    let estimate =
        Duration::from_secs_f64(uploads as f64 * (plan.size_bytes as f64 * 8.0 / 1e9 + 0.05));
    if estimate > LONG_PLAN {
        eprintln!(
            "note: {uploads} uploads of {} each; at 1 Gbit/s that is about {} min. Ctrl-C stops it cleanly.",
            human_bytes(plan.size_bytes),
            estimate.as_secs().div_ceil(60)
        );
    }
    if plan.auto.is_none() && plan.minimum_reps() < crate::stats::compare::MIN_TO_RESOLVE as u32 {
        eprintln!(
            "note: with --reps {}, comparisons will read \"not resolved\": a 95% interval needs at least {} samples per arm",
            plan.reps,
            crate::stats::compare::MIN_TO_RESOLVE
        );
    }
}

/// `--fail-if-slower PCT`: 6 when a module is settled slower than the baseline module
/// beyond PCT, 7 when it cannot tell, within this run.
fn slower_gate(a: &RunArgs, report: &RunReport) -> i32 {
    let Some(pct) = a.fail_if_slower else {
        return exit::OK;
    };
    let baseline = report
        .run
        .plan
        .as_ref()
        .and_then(|p| p.baseline_module())
        .map_or_else(String::new, |b| b.to_string());
    let gate = crate::report::gate::within_run(report, pct);
    super::compare_cmd::gate_code(gate, pct, &baseline, "")
}

/// Exit 5 when a sample's outcome is one --fail-on names.
fn fail_on(a: &RunArgs, report: &RunReport) -> i32 {
    let mut kinds = a.fail_on.clone();
    if a.fail_on_corruption {
        kinds.push(FailOn::Corrupted);
    }
    let hits = |k: FailOn| {
        report
            .samples
            .iter()
            .filter(|s| match k {
                FailOn::Corrupted => s.status == SampleStatus::Corrupted,
                FailOn::Unsupported => s.status == SampleStatus::Unsupported,
                FailOn::Error => matches!(s.status, SampleStatus::Error | SampleStatus::Aborted),
            })
            .count()
    };
    let found: Vec<String> = kinds
        .iter()
        .filter(|&&k| hits(k) > 0)
        .map(|&k| format!("{} {k:?}", hits(k)).to_lowercase())
        .collect();
    if found.is_empty() {
        exit::OK
    } else {
        eprintln!("--fail-on: {}", found.join(", "));
        exit::CORRUPTION
    }
}

#[cfg(test)]
mod tests {
    use super::{checked, exit, exit_code};
    use crate::cli::args::{Cli, Command};
    use crate::domain::arm::Transport;
    use crate::domain::flags::FlagError;
    use clap::Parser;

    /// Why `unobserved run ARGS` is refused before anything starts, as its type.
    fn refused(args: &[&str]) -> Option<FlagError> {
        let cli = Cli::try_parse_from(["unobserved", "run"].iter().chain(args)).unwrap();
        let Command::Run(a) = cli.command else {
            unreachable!("parsed as run")
        };
        let e = checked(&a).err()?;
        crate::cli::usage::flag_of(&e).cloned()
    }

    /// Flags that cannot work, each with why (`folder` is a folder that exists).
    fn bad_flags(folder: &str) -> Vec<(Vec<&str>, FlagError)> {
        vec![
            (
                vec!["--browser", "lynx"],
                FlagError::UnknownBrowser {
                    given: "lynx".into(),
                    known: crate::launch::browsers::LAUNCHABLE
                        .iter()
                        .map(|l| l.key.to_string())
                        .collect(),
                },
            ),
            (
                vec![
                    "--browser",
                    "webkit",
                    "--browser-path",
                    "/a",
                    "--browser-path",
                    "/b",
                ],
                FlagError::WebkitOnePath,
            ),
            (
                vec![
                    "--browser",
                    "chromium",
                    "--browser",
                    "firefox",
                    "--browser-path",
                    "/a",
                ],
                FlagError::PathNeedsOneBrowser,
            ),
            (
                vec![
                    "--browser",
                    "chromium",
                    "--browser",
                    "firefox",
                    "--runs",
                    "2",
                ],
                FlagError::RunsOfOneBrowser,
            ),
            (
                vec!["--browser-path", folder],
                FlagError::BrowserPathIsFolder {
                    path: folder.into(),
                },
            ),
            (vec!["--baseline", "a"], FlagError::BaselineWithoutScript),
            (
                vec!["--browser", "firefox", "--control"],
                FlagError::ControlNeedsChromium {
                    browser: "firefox".into(),
                },
            ),
            (
                vec!["--browser", "webkit", "--workloads", "download"],
                FlagError::PageEngineFlags {
                    browser: "webkit".into(),
                },
            ),
            (vec!["--streams", "2"], FlagError::StreamsWithoutParallel),
            (
                vec![
                    "--transport",
                    "h2",
                    "--sink-url",
                    "http://127.0.0.1:1/upload/abc",
                ],
                FlagError::NotTheSinksTransport {
                    transport: Transport::H1,
                },
            ),
            (
                vec!["--extension-dir", folder],
                FlagError::ExtensionDirWithoutManifest { dir: folder.into() },
            ),
        ]
    }

    /// Each flag that cannot work is refused for its own reason (the words are
    /// export::flag_error's; `cli_usage.rs` holds the exit code and that nothing runs).
    #[test]
    fn each_bad_flag_is_refused_for_its_own_reason() {
        let dir = tempfile::tempdir().unwrap();
        for (args, why) in bad_flags(dir.path().to_str().unwrap()) {
            assert_eq!(refused(&args), Some(why), "{args:?}");
        }
        let reps = refused(&["--reps", "0"]);
        assert!(
            matches!(reps, Some(FlagError::Plan { flag: "--reps", .. })),
            "a plan's rule names its flag: {reps:?}"
        );
        assert_eq!(refused(&[]), None, "the defaults are taken");
    }

    #[test]
    fn the_worst_run_decides_and_a_missing_browser_spoils_only_a_pass() {
        assert_eq!(exit_code(&[], false), exit::BROWSER_MISSING);
        assert_eq!(exit_code(&[exit::OK, exit::OK], false), exit::OK);
        assert_eq!(exit_code(&[exit::OK], true), exit::BROWSER_MISSING);
        assert_eq!(
            exit_code(&[exit::OK, exit::CORRUPTION], false),
            exit::CORRUPTION
        );
        assert_eq!(
            exit_code(&[exit::CORRUPTION, exit::OK], true),
            exit::CORRUPTION
        );
    }
}
