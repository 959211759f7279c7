//! `unobserved report`: any stored run, in any format, recomputed from the store.

use super::args::ReportArgs;
use crate::domain::flags::FlagError;
use crate::export;
use crate::platform::state;
use crate::report::{self, Filter};
use crate::store::Store;
use anyhow::{bail, Context, Result};
use std::io::{IsTerminal, Write};

pub fn execute(a: ReportArgs) -> Result<i32> {
    if a.list && !matches!(a.format, export::Format::Table | export::Format::Json) {
        return Err(super::usage::flag(FlagError::ListFormat));
    }
    if let Some(since) = &a.since {
        if report::parse_since(since).is_none() {
            return Err(super::usage::flag(FlagError::Since {
                given: since.clone(),
            }));
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
        let listing = match a.format {
            export::Format::Json => export::run_list::json(&metas),
            _ => export::run_list::table(&metas),
        };
        emit(a.output.as_deref(), &listing)?;
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

/// A listing to `--output` or stdout.
fn emit(output: Option<&std::path::Path>, text: &str) -> Result<()> {
    match output {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
        }
        None => {
            print!("{text}");
            Ok(())
        }
    }
}
