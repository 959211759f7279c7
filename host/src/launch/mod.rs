//! `unobserved run`: the default suite in a throwaway profile, with nothing attached.
//!
//! The CLI never talks to the browser. It leaves a job file, launches the browser as a
//! plain process with the job's path in its environment, and follows the store: the
//! host that the browser starts offers the job at `hello`, and the extension runs it
//! through the same code path as the popup's Run button.

pub mod auto_progress;
pub mod browsers;
pub mod display;
pub mod interleaved;
pub mod page;
pub mod process;
pub mod profile;
pub mod signals;
pub mod stall;
pub mod watchdog;
pub mod webkit;

use crate::domain::plan::Plan;
use crate::domain::received::Receipt;
use crate::domain::run::{EndReason, RunStatus};
use crate::domain::sink_url::SinkUrl;
use crate::native;
use crate::platform::{extension_files, state};
use crate::protocol::job::{Job, JobTls, TlsListener};
use crate::report::{self, RunReport};
use crate::sink::answers::SinkAt;
use crate::store::{Record, Store, StoreTail};
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub struct RunOptions {
    pub browser: String,
    pub browser_path: Option<PathBuf>,
    pub plan: Plan,
    pub headed: bool,
    pub connect_timeout: Duration,
    pub timeout: Option<Duration>,
    /// Load this extension folder instead of the copy built into the binary.
    pub extension_dir: Option<PathBuf>,
    pub quiet: bool,
    pub keep_profile: bool,
    pub sink_url: Option<SinkUrl>,
    /// How the profile trusts an https:// sink_url's pinned certificate.
    pub sink_trust: Option<crate::platform::local_tls::Pins>,
    /// Interleaved builds: this run's turns (`interleave.rs`); set by `interleaved`.
    pub turns: Option<crate::platform::turns::JobTurns>,
    /// The plan's `--script` modules: where the host reads each.
    pub modules: Vec<crate::protocol::job::JobModule>,
}

/// Why a run did not produce a result. Each maps to its own exit code.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    BrowserMissing(String),
    #[error("{0}")]
    NoConnection(String),
    #[error("{0}")]
    Failed(String),
    #[error("interrupted by {}", .0.name())]
    Interrupted(signals::Signal),
    #[error("{0}")]
    TimedOut(String),
    /// The run could not go on, for a reason the host names: its sink went away, or it
    /// ran out of time and this side stalled.
    #[error("{1}")]
    Ended(EndReason, String),
    /// Results could not be stored: found before launch, or reported by the host.
    #[error("{0}")]
    StoreFailed(String),
}

impl RunError {
    /// The end record for a run that this error stopped, when it had begun.
    fn end_status(&self) -> Option<RunStatus> {
        match self {
            RunError::Interrupted(_) => Some(RunStatus::Stopped),
            RunError::TimedOut(_) => Some(RunStatus::TimedOut),
            RunError::Failed(_)
            | RunError::StoreFailed(_)
            | RunError::Ended(EndReason::SinkUnreachable, _) => Some(RunStatus::Failed),
            RunError::Ended(EndReason::SinkStalled | EndReason::PageStalled, _) => {
                Some(RunStatus::TimedOut)
            }
            RunError::Ended(
                EndReason::PageNotBack
                | EndReason::BenchTabClosed
                | EndReason::HostGone
                | EndReason::BackgroundStopped,
                _,
            ) => Some(RunStatus::Incomplete),
            RunError::Ended(EndReason::PageFailed | EndReason::SampleNotStored, _) => {
                Some(RunStatus::Failed)
            }
            RunError::BrowserMissing(_) | RunError::NoConnection(_) => None,
        }
    }

    /// The typed reason stored with the run's end, where there is one.
    fn end_reason(&self) -> Option<EndReason> {
        match self {
            RunError::Ended(reason, _) => Some(*reason),
            _ => None,
        }
    }
}

pub struct RunOutcome {
    pub report: RunReport,
    pub launch_command: Vec<String>,
    pub browser_path: PathBuf,
}

pub fn run(opts: RunOptions) -> Result<RunOutcome> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(run_async(opts))
}

async fn run_async(opts: RunOptions) -> Result<RunOutcome> {
    let prepared = prepare(&opts)?;
    let mut running = spawn(&prepared)?;
    let followed = follow(&opts, &prepared, &mut running).await;
    let (store, run_id) = (prepared.store.clone(), prepared.run_id.clone());
    let (launch_command, program) = (prepared.launch_command.clone(), prepared.program.clone());
    stop(&opts, prepared.tmp, running).await;
    outcome(followed, &store, &run_id, launch_command, program)
}

/// What a followed run came to, once its browser is ended.
fn outcome(
    followed: Followed,
    store: &Store,
    run_id: &str,
    launch_command: Vec<String>,
    browser_path: PathBuf,
) -> Result<RunOutcome> {
    let (status, reason, end_reason) = match followed {
        Followed::Ended {
            status,
            reason,
            end_reason,
        } => (status, reason, end_reason),
        Followed::Broke { error, .. } => return Err(error),
    };
    let report = stored_report(store, run_id)?;
    if status != RunStatus::Complete {
        let text = format!(
            "the run ended {}",
            crate::export::words::run_status(status.as_str(), end_reason, reason.as_deref())
        );
        // The typed word on why (a sink gone at a block's edge, a tab closed), where
        // there is one.
        bail!(match end_reason {
            Some(why) => RunError::Ended(why, text),
            None => RunError::Failed(text),
        });
    }
    Ok(RunOutcome {
        report,
        launch_command,
        browser_path,
    })
}

/// Everything a run needs before a browser starts: the browser found, the store
/// writable, the throwaway workspace with its extension copy and job file, and the
/// command line. Any failure here has launched nothing.
struct Prepared {
    browser: &'static browsers::Launchable,
    program: PathBuf,
    state_dir: PathBuf,
    store: Store,
    tmp: tempfile::TempDir,
    browser_tmp: PathBuf,
    run_id: String,
    job_path: PathBuf,
    log_path: PathBuf,
    launch: profile::Launch,
    launch_command: Vec<String>,
    /// A browser without native messaging: the run's own `serve` session it opens.
    page: Option<page::PageSession>,
}

fn prepare(opts: &RunOptions) -> Result<Prepared> {
    let (browser, program) = find_browser(opts)?;
    let (state_dir, store) = writable_store()?;
    let tmp = tempfile::Builder::new()
        .prefix("unobserved-run-")
        .tempdir()?;
    let (ws, browser_tmp) = workspace_in(tmp.path())?;
    let run_id = crate::domain::run::new_run_id();
    // A remote sink serves the TLS transport itself (its URL's); the local TLS
    // listeners are for runs on the local sink.
    let tls = match opts.sink_url {
        None => local_tls_of(&opts.plan)?,
        Some(_) => None,
    };
    let job_tls = tls.as_ref().map(|(t, _)| t);
    let (job_path, page) = match browser.engine {
        browsers::Engine::Extension(family) => {
            write_extension(opts, family, &ws.extension)?;
            (write_job(opts, &run_id, job_tls, tmp.path())?, None)
        }
        browsers::Engine::Page => {
            let page = page::start(
                browser,
                &program,
                &opts.plan,
                &run_id,
                job_tls.cloned(),
                &store,
            )?;
            (tmp.path().join("job.json"), Some(page))
        }
    };
    let launch = launch_of(opts, browser, &program, &ws, tls.as_ref(), page.as_ref())?;
    // The served page's token stays out of the log and the --json document.
    let token = page.as_ref().map(|p| p.served.token().to_owned());
    let launch_command: Vec<String> = std::iter::once(launch.program.display().to_string())
        .chain(launch.args.iter().cloned())
        .map(|a| match &token {
            Some(t) => a.replace(t.as_str(), "<token>"),
            None => a,
        })
        .collect();
    Ok(Prepared {
        browser,
        program,
        state_dir,
        store,
        log_path: tmp.path().join("browser.log"),
        tmp,
        browser_tmp,
        run_id,
        job_path,
        launch,
        launch_command,
        page,
    })
}

/// The browser asked for and its binary: the one given with --browser-path, or the
/// first of its usual places.
fn find_browser(opts: &RunOptions) -> Result<(&'static browsers::Launchable, PathBuf)> {
    let browser = browsers::by_key(&opts.browser).ok_or_else(|| {
        let keys: Vec<_> = browsers::LAUNCHABLE.iter().map(|b| b.key).collect();
        RunError::BrowserMissing(format!(
            "unknown browser {:?}; choose one of: {}",
            opts.browser,
            keys.join(", ")
        ))
    })?;
    let program = match &opts.browser_path {
        Some(p) if browsers::is_executable(p) => p.clone(),
        Some(p) => {
            return Err(RunError::BrowserMissing(format!(
                "{} is not an executable file",
                p.display()
            ))
            .into())
        }
        None => browser.find().ok_or_else(|| {
            RunError::BrowserMissing(format!(
                "{} was not found: {}",
                browser.display, browser.install_hint
            ))
        })?,
    };
    Ok((browser, program))
}

/// The state folder and its store, checked writable: fail before launching anything
/// if results could not be kept.
pub(crate) fn writable_store() -> Result<(PathBuf, Store)> {
    let state_dir = state::state_dir()?;
    state::ensure_private_dir(&state_dir)?;
    let store = Store::in_dir(&state_dir);
    state::open_private_append(store.path()).map_err(|e| {
        RunError::StoreFailed(format!(
            "cannot write results to {} (set UNOBSERVED_STATE_DIR to a writable folder): {e}",
            store.path().display()
        ))
    })?;
    Ok((state_dir, store))
}

/// The throwaway profile, home and extension folders, and the browser's own temporary
/// folder, all under `dir`.
fn workspace_in(dir: &Path) -> Result<(profile::Workspace, PathBuf)> {
    let ws = profile::Workspace {
        profile: dir.join("profile"),
        home: dir.join("home"),
        extension: dir.join("extension"),
    };
    // The browser's own temporary files (Chromium's org.chromium.Chromium.*) go in
    // the workspace too, so nothing is left in /tmp.
    let browser_tmp = dir.join("tmp");
    for d in [&ws.profile, &ws.home, &browser_tmp] {
        std::fs::create_dir_all(d)?;
    }
    Ok((ws, browser_tmp))
}

/// The extension copy the browser loads: --extension-dir's or the built-in one,
/// packaged for its family and allowed to reach a remote sink.
fn write_extension(
    opts: &RunOptions,
    family: unobserved_installer::manifest::Family,
    extension: &Path,
) -> Result<()> {
    match &opts.extension_dir {
        Some(dir) => ws_copy_extension(dir, extension)?,
        None => extension_files::write_tree(extension)?,
    }
    // The package `pack` ships for this family (the control build for --control).
    extension_files::make_package(extension, family, opts.plan.control)?;
    if let Some(url) = &opts.sink_url {
        // Headless throwaway profiles cannot click "allow": the copy asks up front.
        extension_files::grant_host_permission(extension, &url.host_permission())?;
    }
    Ok(())
}

/// The job file the host offers the extension at `hello`, written into `dir`.
fn write_job(opts: &RunOptions, run_id: &str, tls: Option<&JobTls>, dir: &Path) -> Result<PathBuf> {
    let job = Job {
        run_id: run_id.to_owned(),
        plan: opts.plan.clone(),
        close_tab: true,
        sink_url: opts.sink_url.clone(),
        tls: tls.cloned(),
        turns: opts.turns.clone(),
        // Now, before the browser starts: its start-up would be the load measured.
        start_cpu_ms: Some(crate::conditions::calibrate::calibrate()),
        module_files: opts.modules.clone(),
    };
    let job_path = dir.join("job.json");
    std::fs::write(&job_path, serde_json::to_vec_pretty(&job)?)?;
    Ok(job_path)
}

/// The browser's command line and environment, trusting the run's local certificate
/// on its TLS ports when it has one.
fn launch_of(
    opts: &RunOptions,
    browser: &browsers::Launchable,
    program: &Path,
    ws: &profile::Workspace,
    tls: Option<&(JobTls, crate::platform::local_tls::Pins)>,
    page: Option<&page::PageSession>,
) -> Result<profile::Launch> {
    let host = std::env::current_exe().context("cannot find the unobserved binary itself")?;
    let as_root = process::running_as_root();
    let ports = |t: &JobTls| t.listeners.iter().map(|l| l.port).collect::<Vec<_>>();
    let trust = match (tls, &opts.sink_url, &opts.sink_trust) {
        (Some((t, pins)), _, _) => Some(profile::Trust {
            pins,
            places: crate::platform::local_tls::loopback_places(&ports(t)),
        }),
        // A pinned remote sink: the certificate it presented before launch, where it is.
        (None, Some(url), Some(pins)) => Some(profile::Trust {
            pins,
            places: vec![(url.host().to_owned(), url.port())],
        }),
        _ => None,
    };
    let launch = profile::prepare(
        browser,
        program,
        ws,
        &host,
        profile::Mode {
            headed: opts.headed,
            as_root,
            trust,
            page: page.map(|p| profile::Page {
                url: &p.url,
                display: p.display.name(),
            }),
        },
    )?;
    if as_root
        && browser.family() == Some(unobserved_installer::manifest::Family::Chromium)
        && !opts.quiet
    {
        eprintln!("note: running as root, so Chromium gets --no-sandbox");
    }
    Ok(launch)
}

/// The browser, started, and what watches it.
struct Running {
    child: tokio::process::Child,
    pgid: i32,
    /// Ends the browser if we are killed outright; ended by us when we end normally.
    guard: Option<std::process::Child>,
    tail: StoreTail,
}

fn spawn(p: &Prepared) -> Result<Running> {
    let log_file = std::fs::File::create(&p.log_path)?;
    let mut cmd = tokio::process::Command::new(&p.launch.program);
    cmd.args(&p.launch.args)
        .envs(p.launch.env.iter().map(|(k, v)| (k, v)))
        .env(state::STATE_DIR_ENV, &p.state_dir)
        .env(native::JOB_ENV, &p.job_path)
        .env("TMPDIR", &p.browser_tmp)
        .stdin(std::process::Stdio::null())
        .stdout(log_file.try_clone()?)
        .stderr(log_file)
        .kill_on_drop(true);
    // Its own process group, so the browser and every child it spawns end together,
    // and (Linux) a leader that dies with us even if we are killed outright.
    #[cfg(unix)]
    cmd.process_group(0);
    #[cfg(target_os = "linux")]
    unsafe {
        cmd.pre_exec(watchdog::die_with_parent);
    }
    log::info!("launching: {}", p.launch_command.join(" "));
    // Followed from here, so nothing the run writes is missed.
    let tail = StoreTail::from_end(p.store.path().to_owned());
    let child = cmd
        .spawn()
        .with_context(|| format!("cannot start {}", p.program.display()))?;
    let pgid = child.id().map(|p| p as i32).unwrap_or(0);
    let guard = watchdog::spawn(pgid, p.tmp.path(), &p.run_id)
        .map_err(|e| log::warn!("no watchdog for the browser: {e}"))
        .ok();
    Ok(Running {
        child,
        pgid,
        guard,
        tail,
    })
}

/// How following a run ended: the extension recorded an end, or something broke first.
enum Followed {
    Ended {
        status: RunStatus,
        reason: Option<String>,
        end_reason: Option<EndReason>,
    },
    /// `connected`: the extension had begun the run (so it gets an end record).
    Broke {
        error: anyhow::Error,
        connected: bool,
    },
}

/// Follows the store until the run's end record, the browser's exit, a signal, a
/// store failure, or a deadline, with progress on the way.
async fn follow(opts: &RunOptions, p: &Prepared, r: &mut Running) -> Followed {
    let mut f = Follow::new(opts, p);
    let mut interval = tokio::time::interval(Duration::from_millis(200));
    let mut signals = match signals::Signals::listen() {
        Ok(s) => s,
        Err(error) => {
            return Followed::Broke {
                error: error.into(),
                connected: false,
            }
        }
    };
    let followed = loop {
        tokio::select! {
            status = r.child.wait() => {
                let code = status.map(|s| s.to_string()).unwrap_or_else(|e| e.to_string());
                break f.broke(RunError::Failed(format!(
                    "{} exited ({code}) before the run finished.\n{}", p.browser.display, log_tail(&p.log_path))));
            }
            signal = signals.recv() => break f.broke(RunError::Interrupted(signal)),
            _ = interval.tick() => {
                if let Some(end) = f.tick(&mut r.tail) { break end; }
            }
        }
    };
    f.progress.finish();
    // Before the browser is ended: a dying extension must not get to record its own
    // version of how the run ended first.
    if let Followed::Broke { error, connected } = &followed {
        record_end(&p.store, &p.run_id, (*connected, r.pgid), error);
    }
    followed
}

/// What following one run keeps between looks at the store.
struct Follow<'a> {
    opts: &'a RunOptions,
    p: &'a Prepared,
    progress: Progress,
    auto: Option<auto_progress::Watch>,
    total_timeout: Duration,
    started: Instant,
    /// The extension has begun the run (so it gets an end record).
    connected: bool,
}

impl<'a> Follow<'a> {
    fn new(opts: &'a RunOptions, p: &'a Prepared) -> Follow<'a> {
        Follow {
            opts,
            p,
            progress: Progress::new(opts.quiet, &opts.plan, p.browser.display),
            auto: opts.plan.auto.map(|_| auto_progress::Watch::new()),
            total_timeout: opts.timeout.unwrap_or_else(|| opts.plan.default_timeout()),
            started: Instant::now(),
            connected: false,
        }
    }

    fn broke(&self, e: RunError) -> Followed {
        Followed::Broke {
            error: e.into(),
            connected: self.connected,
        }
    }

    /// One look at the store: the run's end or a failure, or None to keep following.
    fn tick(&mut self, tail: &mut StoreTail) -> Option<Followed> {
        let (p, opts) = (self.p, self.opts);
        let records = match tail.poll() {
            Ok(records) => records,
            Err(error) => {
                return Some(Followed::Broke {
                    error: error.into(),
                    connected: self.connected,
                })
            }
        };
        if let Some(end) = self.read(records) {
            // The last word on the verdicts is over every rep, as the report is.
            if let Some(last) = self.auto.as_ref().and_then(|w| w.last(&p.store, &p.run_id)) {
                self.progress.auto(last);
            }
            return Some(end);
        }
        if let Some(now) = self.auto.as_mut().and_then(|w| w.poll(&p.store, &p.run_id)) {
            self.progress.auto(now);
        }
        if let Some(error) = store_failure(&p.job_path) {
            return Some(self.broke(RunError::StoreFailed(format!(
                "the host could not store results: {error}"
            ))));
        }
        if !self.connected && self.started.elapsed() > opts.connect_timeout {
            return Some(self.broke(RunError::NoConnection(format!(
                "the extension did not start the run within {}s: the browser started, but nothing reached the host.\n{}",
                opts.connect_timeout.as_secs(), log_tail(&p.log_path)))));
        }
        if self.started.elapsed() > self.total_timeout {
            return Some(self.broke(timed_out(opts, p, self.total_timeout)));
        }
        None
    }

    /// This run's new records: progress, and its end record if there is one.
    fn read(&mut self, records: Vec<Record>) -> Option<Followed> {
        let mut end = None;
        for record in records {
            if record.run_id() != Some(self.p.run_id.as_str()) {
                continue;
            }
            match record {
                Record::Run(_) => {
                    self.connected = true;
                    self.progress.connected();
                }
                Record::Sample(s) => {
                    self.connected = true;
                    self.progress.sample(&s.body, s.rep, s.status.as_str());
                    if let Some(w) = &mut self.auto {
                        w.saw(s.rep);
                    }
                    if s.receipt == Some(Receipt::SinkUnreachable) {
                        end = Some(sink_gone(self.opts));
                    }
                }
                Record::RunEnd {
                    status,
                    reason,
                    end_reason,
                    ..
                } => {
                    end = Some(Followed::Ended {
                        status,
                        reason,
                        end_reason,
                    })
                }
                Record::Machine(_)
                | Record::Series(_)
                | Record::Conditions(_)
                | Record::CeilingAfter { .. }
                | Record::SinkEvent { .. } => {}
            }
        }
        end
    }
}

/// A sample whose record its remote sink could not give: the sink went away, and the
/// run ends here, every sample stored before kept.
fn sink_gone(opts: &RunOptions) -> Followed {
    let at = opts
        .sink_url
        .as_ref()
        .map(SinkUrl::origin)
        .unwrap_or_default();
    let reason = EndReason::SinkUnreachable;
    Followed::Broke {
        error: RunError::Ended(reason, crate::export::words::run_ended(reason, &at)).into(),
        connected: true,
    }
}

/// The run ran out of time: which side stalled, the page or its sink (`stall.rs`).
fn timed_out(opts: &RunOptions, p: &Prepared, limit: Duration) -> RunError {
    let text = crate::export::words::timed_out(limit.as_secs());
    let at = match &opts.sink_url {
        Some(url) => Some(SinkAt::Remote(url.clone())),
        None => local_sink(p).map(SinkAt::Local),
    };
    match at {
        Some(at) => {
            let side = stall::side(&at);
            let why = crate::export::words::run_ended(side, &at.origin());
            RunError::Ended(side, format!("{text}: {why}"))
        }
        // No host ever started for the run: there is no sink to ask.
        None => RunError::TimedOut(text),
    }
}

/// Where the run's local sink is: in the run's own `serve` session, or in the host the
/// browser started, as that host wrote beside the job.
fn local_sink(p: &Prepared) -> Option<std::net::SocketAddr> {
    if let Some(page) = &p.page {
        return Some(page.served.addr());
    }
    let text = std::fs::read(native::local_sink_signal(&p.job_path)).ok()?;
    let at: native::LocalSinkAt = serde_json::from_slice(&text).ok()?;
    Some(at.addr)
}

/// Ends the browser, its watchdog and (unless kept) the workspace.
async fn stop(opts: &RunOptions, tmp: tempfile::TempDir, mut r: Running) {
    if !process::end_group(r.pgid, Duration::from_secs(3)) {
        log::warn!(
            "some browser processes in group {} outlived SIGKILL",
            r.pgid
        );
    }
    let _ = r.child.wait().await;
    if let Some(mut g) = r.guard.take() {
        let _ = g.kill();
        let _ = g.wait();
    }
    if opts.keep_profile {
        let kept = tmp.keep();
        eprintln!("kept the throwaway profile in {}", kept.display());
    }
}

/// The ended run, as every report computes it from the store.
fn stored_report(store: &Store, run_id: &str) -> Result<RunReport> {
    report::load_run(store, run_id, report::TimelinePoints::Keep)?.with_context(|| {
        format!(
            "run {run_id} ended but nothing of it is in {}",
            store.path().display()
        )
    })
}

/// How long `run` waits for the store's lock to record a run's end before it ends the
/// browser (and so its native host) first.
const STORE_WAIT: Duration = Duration::from_secs(5);

/// Every way out of a run that had begun leaves an end record saying how it ended. A
/// native host stopped with its browser (a frozen browser; the stall test SIGSTOPs it)
/// may hold the store's lock: after `STORE_WAIT` the browser's group is ended, which
/// frees it, and the end is recorded then.
fn record_end(
    store: &Store,
    run_id: &str,
    (begun_and_open, pgid): (bool, i32),
    error: &anyhow::Error,
) {
    let Some(status) = error
        .downcast_ref::<RunError>()
        .and_then(RunError::end_status)
    else {
        return;
    };
    if !begun_and_open {
        return;
    }
    let run_error = error.downcast_ref::<RunError>();
    let reason = error.to_string();
    let reason = reason.lines().next().unwrap_or("").to_owned();
    let record = Record::RunEnd {
        run_id: run_id.to_owned(),
        status,
        reason: Some(reason),
        end_reason: run_error.and_then(RunError::end_reason),
        recorded_at: crate::store::records::now(),
        observation: None,
        auto_stop: None,
    };
    let mut stored = store.append_within(std::slice::from_ref(&record), STORE_WAIT);
    if matches!(&stored, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock) {
        log::warn!("the store stayed locked for {STORE_WAIT:?}; ending the browser first");
        process::end_group(pgid, Duration::from_secs(3));
        stored = store.append(&[record]);
    }
    if let Err(e) = stored {
        log::error!("could not record how run {run_id} ended: {e}");
    }
}

fn ws_copy_extension(from: &std::path::Path, to: &std::path::Path) -> Result<()> {
    if !from.join("manifest.json").is_file() {
        bail!("{} has no manifest.json", from.display());
    }
    for entry in extension_files::files_under(from)? {
        let rel = entry.strip_prefix(from)?;
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap())?;
        std::fs::copy(&entry, &dest)?;
    }
    Ok(())
}

/// A run over TLS transports gets a fresh certificate and a loopback port per TLS
/// listener, chosen now because Firefox trusts a certificate per port and reads that
/// at start. The host binds them when the run starts.
fn local_tls_of(plan: &Plan) -> Result<Option<(JobTls, crate::platform::local_tls::Pins)>> {
    let tls: Vec<_> = plan.transports.iter().filter(|t| t.is_tls()).collect();
    if tls.is_empty() {
        return Ok(None);
    }
    let (cert, pins) = crate::platform::local_tls::LocalCert::generate()?;
    let mut listeners = Vec::new();
    // Every probe stays bound until all are chosen, so no two listeners get one port.
    let mut probes = Vec::new();
    for &&transport in &tls {
        let probe = std::net::TcpListener::bind(("127.0.0.1", 0))
            .context("cannot find a free loopback port for the TLS sink")?;
        listeners.push(TlsListener {
            transport,
            port: probe.local_addr()?.port(),
        });
        probes.push(probe);
    }
    drop(probes);
    Ok(Some((JobTls { cert, listeners }, pins)))
}

/// Sortable and unique enough: time plus 16 random bits.
fn log_tail(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = &lines[lines.len().saturating_sub(15)..];
    if tail.is_empty() {
        "(the browser printed nothing)".into()
    } else {
        format!("Last lines from the browser:\n  {}", tail.join("\n  "))
    }
}

/// The host's structured report that it could not write the store (full disk,
/// read-only folder), so the run stops with that reason instead of timing out.
fn store_failure(job: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(native::store_failure_signal(job)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(v["error"].as_str()?.to_owned())
}

/// The terminal progress bar (stderr), or nothing with --quiet. A fixed plan counts
/// its uploads; an auto-sampled one its time budget, with the comparisons settled.
struct Progress {
    bar: Option<ProgressBar>,
    auto: bool,
    settled: std::cell::Cell<Option<(usize, usize)>>,
}

impl Progress {
    fn new(quiet: bool, plan: &Plan, browser: &str) -> Progress {
        let auto = plan.auto.is_some();
        let settled = std::cell::Cell::new(None);
        if quiet {
            return Progress {
                bar: None,
                auto,
                settled,
            };
        }
        let (len, template) = match plan.auto {
            Some(b) => (
                b.max_seconds,
                "{spinner} {prefix} [{bar:30}] {pos}/{len} s {msg}",
            ),
            None => (
                plan.measured_uploads(),
                "{spinner} {prefix} [{bar:30}] {pos}/{len} {msg}",
            ),
        };
        let bar = ProgressBar::new(len);
        bar.set_style(
            ProgressStyle::with_template(template)
                .unwrap()
                .progress_chars("=> "),
        );
        bar.set_prefix(browser.to_owned());
        bar.set_message("starting the browser, waiting for the extension…");
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress {
            bar: Some(bar),
            auto,
            settled,
        }
    }
    fn connected(&self) {
        if let Some(b) = &self.bar {
            b.set_message("warming up…");
        }
    }
    fn sample(&self, body: &str, rep: u32, status: &str) {
        let Some(b) = &self.bar else { return };
        if !self.auto {
            b.inc(1);
        }
        let settled = self.settled.get().map_or(String::new(), |(s, n)| {
            format!(" · {s} of {n} comparisons settled")
        });
        b.set_message(format!("rep {} {body}: {status}{settled}", rep + 1));
    }
    /// The host's rule applied to the stored run: settled comparisons, time left.
    fn auto(&self, p: crate::protocol::messages::AutoProgress) {
        let Some(b) = &self.bar else { return };
        b.set_position(b.length().unwrap_or(0).saturating_sub(p.seconds_left));
        let counts = Some((p.settled, p.comparisons));
        if p.comparisons > 0 && self.settled.get() != counts {
            // A verdict that stands is shown when it does, not only at the end.
            let verdicts: Vec<String> = p
                .settled_verdicts
                .iter()
                .map(crate::export::words::comparison_line)
                .collect();
            let verdicts = verdicts.join("; ");
            let line = format!(
                "auto: {} of {} comparisons settled, {} s of the budget left{}",
                p.settled,
                p.comparisons,
                p.seconds_left,
                if verdicts.is_empty() {
                    String::new()
                } else {
                    format!(": {verdicts}")
                }
            );
            b.suspend(|| eprintln!("{line}"));
        }
        self.settled.set(counts);
    }
    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
