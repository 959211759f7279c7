//! `unobserved compare A B`: every arm of run B against the same arm of run A, from
//! the store, with the same intervals and verdicts as within a run.

use super::args::CompareArgs;
use super::exit;
use super::usage::flag;
use crate::domain::flags::FlagError;
use crate::domain::series::{Series, SeriesPick};
use crate::export;
use crate::platform::state;
use crate::report::gate::Gate;
use crate::report::{self, across, RunReport};
use crate::store::Store;
use anyhow::{Context, Result};
use std::io::IsTerminal;

pub fn execute(a: CompareArgs) -> Result<i32> {
    let store = Store::in_dir(&state::state_dir()?);
    let cannot_read = || format!("cannot read {}", store.path().display());
    let metas = report::read_metas(&store).with_context(cannot_read)?;
    let sides: Vec<Vec<usize>> = a
        .runs
        .iter()
        .map(|side| pick_side(&metas, side))
        .collect::<Result<_>>()?;
    check_distinct(&sides, &metas)?;
    // Only the runs compared are read whole, and analysed.
    let named: Vec<report::RunMeta> = sides.iter().flatten().map(|&i| metas[i].clone()).collect();
    let analysed: std::collections::HashMap<String, RunReport> =
        report::read_these(&store, &named, a.format.points())
            .with_context(cannot_read)?
            .into_iter()
            .map(|run| (run.meta.run_id.clone(), run.analyse()))
            .collect();
    let analysed: std::collections::HashMap<usize, &RunReport> = sides
        .iter()
        .flatten()
        .filter_map(|&i| Some((i, analysed.get(&metas[i].run_id)?)))
        .collect();
    let picked: Vec<Vec<RunReport>> = sides
        .iter()
        .map(|side| side.iter().map(|i| analysed[i].clone()).collect())
        .collect();
    // Two versions of one workload module are never compared as one.
    report::module_code::check(&picked.iter().flatten().collect::<Vec<_>>())?;
    let compared = across::compare_sides(&picked, a.horizon / 100.0);
    let colour = a.output.is_none() && std::io::stdout().is_terminal();
    let labels: Vec<String> = compared.sides.iter().map(|ids| ids.join(",")).collect();
    let text = export::exporter(a.format, colour).render_compared(&compared, &labels);
    match &a.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(a.fail_if_slower.map_or(exit::OK, |pct| {
        let machine = compared.machine.to_string();
        gate_code(compared.gate(pct), pct, &labels[0], &machine)
    }))
}

/// `--fail-if-slower`: 6 on a settled "slower" beyond the bound, 7 when the comparison
/// cannot tell, else 0; each said on stderr. `machine` is why runs were not comparable.
pub(super) fn gate_code(gate: Gate, pct: f64, baseline: &str, machine: &str) -> i32 {
    for line in crate::export::gate::said(&gate, pct, baseline, machine) {
        eprintln!("{line}");
    }
    match gate {
        Gate::Pass => exit::OK,
        Gate::Slower(_) => exit::SLOWER,
        Gate::Undecided { .. } => exit::UNDECIDED,
    }
}

/// A run on two sides, or twice on one, would be compared with itself.
fn check_distinct(sides: &[Vec<usize>], runs: &[report::RunMeta]) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for &i in sides.iter().flatten() {
        if !seen.insert(i) {
            let id = &runs[i].run_id;
            return Err(flag(FlagError::RunNamedTwice { run_id: id.clone() }));
        }
    }
    Ok(())
}

/// Each argument is a side: one run, several of one build joined by commas, or a whole
/// series of `run --runs N` (`series:…`).
fn pick_side(runs: &[report::RunMeta], side: &str) -> Result<Vec<usize>> {
    let Some(spec) = side.strip_prefix("series:") else {
        return side
            .split(',')
            .map(|which| pick_run(runs, which.trim()))
            .collect();
    };
    let pick = SeriesPick::parse(spec).map_err(flag)?;
    let tags: Vec<Option<&Series>> = runs.iter().map(|r| r.series.as_ref()).collect();
    let found = pick.runs_in(&tags);
    if found.is_empty() {
        return Err(flag(FlagError::NoSuchSeries { side: side.into() }));
    }
    Ok(found)
}

/// A run id, `last`, or `last~N`: its index in the store's runs.
fn pick_run(runs: &[report::RunMeta], which: &str) -> Result<usize> {
    let back = match which {
        "last" => Some(0),
        w => w
            .strip_prefix("last~")
            .map(|n| {
                n.parse::<usize>().map_err(|_| {
                    flag(FlagError::NotBack {
                        given: which.into(),
                        of: crate::domain::flags::Back::Runs,
                    })
                })
            })
            .transpose()?,
    };
    let found = match back {
        Some(n) => runs.len().checked_sub(n + 1),
        None => runs.iter().position(|r| r.run_id == which),
    };
    found.ok_or_else(|| {
        flag(FlagError::NoSuchRun {
            which: which.into(),
        })
    })
}
