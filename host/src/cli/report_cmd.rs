//! `unobserved report`: any stored run, in any format, recomputed from the store.

use super::args::{Format, ReportArgs};
use crate::report::{self, csv, html, json, markdown, table, Filter};
use crate::state;
use crate::store::Store;
use anyhow::{bail, Context, Result};
use std::io::IsTerminal;

pub fn execute(a: ReportArgs) -> Result<i32> {
    let store = Store::in_dir(&state::state_dir()?);
    let contents = store
        .read()
        .with_context(|| format!("cannot read {}", store.path().display()))?;
    if let Some(since) = &a.since {
        if report::parse_since(since).is_none() {
            return Err(super::usage::usage(format!(
                "--since {since:?} is not a date or time; use e.g. 2026-11-30 or 2026-11-30T14:00:00Z"
            )));
        }
    }
    let filter = Filter {
        run: a.run.clone(),
        browser: a.browser.clone(),
        since: a.since.clone(),
    };
    let runs = report::select(report::runs(&contents), &filter);
    if runs.is_empty() {
        bail!(
            "no runs match in {} (run `unobserved run` or click Run in the extension first)",
            store.path().display()
        );
    }
    let colour = a.output.is_none() && std::io::stdout().is_terminal();
    let text = match a.format {
        Format::Table => runs
            .iter()
            .map(|r| table::render(r, colour))
            .collect::<Vec<_>>()
            .join("\n"),
        Format::Json => json::render(&runs, None),
        Format::Csv => csv::render(&runs),
        Format::Markdown => markdown::render(&runs),
        Format::Html => html::render(&runs),
    };
    match &a.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{text}{}", if text.ends_with('\n') { "" } else { "\n" }),
    }
    Ok(super::exit::OK)
}
