//! `unobserved run`.

use super::args::RunArgs;
use super::exit;
use crate::model::{
    DownloadWorkload, EncryptedWorkload, ParallelWorkload, Plan, Workloads, BODY_KINDS,
};
use crate::report::table;
use crate::run::{self, RunOptions};
use anyhow::{bail, Context, Result};
use std::io::IsTerminal;
use std::time::Duration;

pub fn execute(a: RunArgs) -> Result<i32> {
    let bodies = a.bodies.clone().unwrap_or_else(|| {
        if a.workloads.is_empty() {
            BODY_KINDS.map(String::from).to_vec()
        } else {
            Vec::new()
        }
    });
    for b in &bodies {
        if !BODY_KINDS.contains(&b.as_str()) {
            bail!(
                "unknown body kind {b:?}; choose from {}",
                BODY_KINDS.join(", ")
            );
        }
    }
    if let Some(url) = &a.sink_url {
        let ok =
            (url.starts_with("http://") || url.starts_with("https://")) && url.contains("/upload/");
        if !ok {
            bail!("--sink-url must be the URL `unobserved sink` printed, like http://HOST:PORT/upload/TOKEN");
        }
    }
    if a.reps == 0 {
        bail!("--reps must be at least 1");
    }
    if a.control
        && crate::run::browsers::by_key(&a.browser)
            .is_some_and(|b| b.family != unobserved_installer::manifest::Family::Chromium)
    {
        bail!("--control is not available in {}: it attaches a debugger through chrome.debugger, which only Chromium-family browsers have", a.browser);
    }
    let auto = a.auto.then_some(crate::model::AutoBudget {
        max_reps: a.max_reps.max(a.reps),
        max_seconds: a.max_time,
    });
    let has = |w: &str| a.workloads.iter().any(|x| x == w);
    if has("encrypted") && a.chunk_sizes.iter().any(|&c| c > 64 << 20) {
        bail!("--chunk-sizes above 64MiB are refused: the sink holds one chunk in memory to decrypt it");
    }
    let workloads = Workloads {
        encrypted: has("encrypted").then(|| EncryptedWorkload {
            file_bytes: a.file_size,
            chunk_sizes: a.chunk_sizes.clone(),
        }),
        download: has("download").then_some(DownloadWorkload { bytes: a.size }),
        parallel: has("parallel").then(|| ParallelWorkload {
            bytes: a.size,
            streams: a.streams.clone(),
        }),
    };
    let plan = Plan {
        size_bytes: a.size,
        reps: a.reps,
        warmup: a.warmup,
        bodies,
        control: a.control,
        auto,
        negative_control: a.negative_control,
        horizon: Some(a.horizon / 100.0),
        workloads,
    };
    let outcome = run::run(RunOptions {
        browser: a.browser.clone(),
        browser_path: a.browser_path.clone(),
        plan,
        headed: a.headed,
        connect_timeout: Duration::from_secs(a.connect_timeout),
        timeout: a.timeout.map(Duration::from_secs),
        extension_dir: a.extension_dir.clone(),
        quiet: a.quiet,
        keep_profile: a.keep_profile,
        sink_url: a.sink_url.clone(),
    })?;
    print!(
        "{}",
        table::render(&outcome.report, std::io::stdout().is_terminal())
    );
    if let Some(path) = &a.json {
        let mut doc = serde_json::to_value(&outcome.report)?;
        doc["launch"] = serde_json::json!({
            "browser_path": outcome.browser_path,
            "command": outcome.launch_command,
        });
        std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    let not_intact = outcome.report.samples.iter().filter(|s| !s.intact).count();
    if a.fail_on_corruption && not_intact > 0 {
        eprintln!("--fail-on-corruption: {not_intact} sample(s) were not intact");
        return Ok(exit::CORRUPTION);
    }
    Ok(exit::OK)
}
