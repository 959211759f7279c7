//! `unobserved compare A B`: every arm of run B against the same arm of run A, from
//! the store, with the same intervals and verdicts as within a run.

use super::args::CompareArgs;
use super::exit;
use super::usage::usage;
use crate::export;
use crate::report::{self, across, RunReport};
use crate::state;
use crate::store::Store;
use anyhow::{Context, Result};
use std::io::IsTerminal;

pub fn execute(a: CompareArgs) -> Result<i32> {
    let store = Store::in_dir(&state::state_dir()?);
    let stored = report::read_runs(&store, a.format.points())
        .with_context(|| format!("cannot read {}", store.path().display()))?;
    // Only the runs compared are analysed.
    let mut runs: Vec<Option<report::StoredRun>> = stored.into_iter().map(Some).collect();
    let indices = a
        .runs
        .iter()
        .map(|which| pick_run(&runs, which))
        .collect::<Result<Vec<_>>>()?;
    let mut analysed: std::collections::HashMap<usize, RunReport> = Default::default();
    for &i in &indices {
        if let Some(run) = runs[i].take() {
            analysed.insert(i, run.analyse());
        }
    }
    let picked: Vec<RunReport> = indices.iter().map(|i| analysed[i].clone()).collect();
    let compared = across::compare_runs(&picked, a.horizon / 100.0);
    let colour = a.output.is_none() && std::io::stdout().is_terminal();
    let labels: Vec<String> = picked.iter().map(label).collect();
    let text = export::exporter(a.format, colour).render_compared(&compared, &labels);
    match &a.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{text}"),
    }
    if let Some(pct) = a.fail_if_slower {
        let slower = compared.slower_than(pct);
        if !slower.is_empty() {
            eprintln!(
                "--fail-if-slower {pct}: slower than {} beyond {pct}%: {}",
                labels[0],
                slower
                    .iter()
                    .map(|a| a.label())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            return Ok(exit::SLOWER);
        }
    }
    Ok(exit::OK)
}

fn label(r: &RunReport) -> String {
    r.run.run_id.clone()
}

/// A run id, `last`, or `last~N`: its index in the store's runs.
fn pick_run(runs: &[Option<report::StoredRun>], which: &str) -> Result<usize> {
    let back = match which {
        "last" => Some(0),
        w => w
            .strip_prefix("last~")
            .map(|n| {
                n.parse::<usize>().map_err(|_| {
                    usage(format!(
                        "{which:?}: after last~ comes a number of runs back"
                    ))
                })
            })
            .transpose()?,
    };
    let found = match back {
        Some(n) => runs.len().checked_sub(n + 1),
        None => runs
            .iter()
            .position(|r| r.as_ref().is_some_and(|r| r.meta.run_id == which)),
    };
    found.ok_or_else(|| {
        usage(format!(
            "no run {which:?} in the store (`unobserved report --list` shows them)"
        ))
    })
}
