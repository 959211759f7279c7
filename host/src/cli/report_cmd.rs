//! `unobserved report`: any stored run, in any format, recomputed from the store.

use super::args::ReportArgs;
use crate::export::{self, human_bytes};
use crate::platform::state;
use crate::report::{self, Filter};
use crate::store::Store;
use anyhow::{bail, Context, Result};
use std::io::{IsTerminal, Write};

pub fn execute(a: ReportArgs) -> Result<i32> {
    if let Some(since) = &a.since {
        if report::parse_since(since).is_none() {
            return Err(super::usage::usage(format!(
                "--since {since:?} is not a date or time; use e.g. 2026-11-30 or 2026-11-30T14:00:00Z"
            )));
        }
    }
    let store = Store::in_dir(&state::state_dir()?);
    let cannot_read = || format!("cannot read {}", store.path().display());
    let metas = metas_to_select(&store, &a).with_context(cannot_read)?;
    let filter = Filter {
        run: a.run.clone(),
        browser: a.browser.clone(),
        since: a.since.clone(),
    };
    // Runs are selected from their `RunMeta`s before any sample is read whole: a list
    // needs none, and one huge run elsewhere in the store costs a report of another
    // run only the skipping of its lines.
    let mut metas = report::select(metas, &filter);
    if let Some(n) = a.limit {
        metas.drain(..metas.len().saturating_sub(n));
    }
    if a.list {
        print!("{}", list(metas.iter()));
        return Ok(super::exit::OK);
    }
    let runs: Vec<report::RunReport> = report::read_these(&store, &metas, a.format.points())
        .with_context(cannot_read)?
        .into_iter()
        .map(report::StoredRun::analyse)
        .collect();
    if runs.is_empty() {
        bail!(
            "no runs match in {} (run `unobserved run` or click Run in the extension first)",
            store.path().display()
        );
    }
    write(&a, &runs)?;
    Ok(super::exit::OK)
}

/// The `RunMeta`s `--run` can pick from. One run named by its id, or `last` with no other
/// filter: only its lines are read, through the store's index. Otherwise every run's heads.
fn metas_to_select(store: &Store, a: &ReportArgs) -> std::io::Result<Vec<report::RunMeta>> {
    let only_last = a.browser.is_none() && a.since.is_none();
    let one = match a.run.as_deref() {
        Some(report::LAST) if only_last => store.newest_run_id(),
        Some(report::LAST) | None => None,
        Some(id) => return report::read_meta_of(store, id).map(Vec::from_iter),
    };
    match one
        .map(|id| report::read_meta_of(store, &id))
        .transpose()?
        .flatten()
    {
        Some(meta) => Ok(vec![meta]),
        None => report::read_metas(store),
    }
}

/// The runs in `--format`, to `--output` or stdout (in colour on a terminal).
fn write(a: &ReportArgs, runs: &[report::RunReport]) -> Result<()> {
    let colour = a.output.is_none() && std::io::stdout().is_terminal();
    let exporter = export::exporter(a.format, colour);
    match &a.output {
        Some(path) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            let mut out = std::io::BufWriter::new(file);
            exporter
                .write(runs, &mut out)
                .and_then(|_| out.flush())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            exporter.write(runs, &mut out).and_then(|_| out.flush())?;
        }
    }
    Ok(())
}

/// One line per run, oldest first: id, start, browser, plan, status, observed.
fn list<'a>(runs: impl Iterator<Item = &'a report::RunMeta>) -> String {
    let mut out = format!(
        "{:<22} {:<20} {:<28} {:<16} {:<12} {}\n",
        "Run", "Started (UTC)", "Browser", "Plan", "Status", "Observed"
    );
    for m in runs {
        let plan = m.plan.as_ref().map_or("–".into(), |p| {
            format!("{} × {}", human_bytes(p.size_bytes), p.reps)
        });
        let started = m.started_at.as_deref().unwrap_or("–");
        out += &format!(
            "{:<22} {:<20} {:<28} {:<16} {:<12} {}\n",
            m.run_id,
            started.get(..19).unwrap_or(started).replace('T', " "),
            format!("{} {}", m.env.browser, m.env.browser_version),
            plan,
            m.status,
            m.observed
        );
    }
    out
}
