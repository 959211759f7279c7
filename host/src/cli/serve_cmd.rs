//! `unobserved serve`: the benchmark page for any browser, no extension. The first line
//! of stdout is the page's URL, session token included; with a LAN address a QR code of
//! it follows. Each run a page starts is stored and its table printed when it ends.
//! Ctrl-C ends it (exit 0), recording runs still going as stopped.

use super::args::ServeArgs;
use super::exit;
use super::usage::flag;
use crate::domain::flags::FlagError;
use crate::domain::run::RunStatus;
use crate::export::{table::Table, Exporter};
use crate::launch::signals::Signals;
use crate::serve::{Offer, ServeConfig, Served, Start};
use anyhow::Result;
use std::io::Write;

pub fn execute(a: ServeArgs) -> Result<i32> {
    let plan = super::plan_args::checked(a.plan.plan(false))?;
    let public = !a.listen.ip().is_loopback() || a.public_host.is_some();
    if plan.transports.iter().any(|t| t.is_tls()) {
        if public {
            return Err(flag(FlagError::ServeTlsOffLoopback));
        }
        crate::platform::local_ca::session_leaf().map_err(|e| {
            flag(FlagError::ServeNeedsLocalHttps {
                error: e.to_string(),
            })
        })?;
    }
    let (_, store) = crate::launch::writable_store()?;
    let served = Served::start(
        ServeConfig {
            listen: a.listen,
            public_hosts: a
                .public_host
                .iter()
                .map(|h| h.as_str().to_owned())
                .collect(),
            offer: Offer {
                plan,
                start: Start::Button,
                run_id: None,
                env: None,
            },
            tls: None,
            starts_per_minute: std::num::NonZeroU32::new(a.starts_per_minute)
                .expect("--starts-per-minute is at least 1"),
            page_return: std::time::Duration::from_secs(a.page_return),
        },
        store.clone(),
    )?;
    let hosts = super::sink_cmd::public_hosts(a.public_host.as_ref(), served.addr());
    let url = served.page_url(&hosts[0]);
    let mut out = std::io::stdout().lock();
    writeln!(out, "{url}")?;
    if public {
        // Then a blank line: the code's end, for a script reading it.
        writeln!(out, "{}\n", crate::serve::qr::render(&url)?)?;
    }
    out.flush()?;
    drop(out);
    for other in &hosts[1..] {
        eprintln!("also reachable as {}", served.page_url(other));
    }
    eprintln!("serving: open the URL above in any browser and press Run (or Enter). Ctrl-C stops.");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(follow(served, &store, a.once))
}

/// Prints each run as it ends, until Ctrl-C (or, with --once, a complete run).
async fn follow(mut served: Served, store: &crate::store::Store, once: bool) -> Result<i32> {
    let mut signals = Signals::listen()?;
    loop {
        tokio::select! {
            signal = signals.recv() => {
                served.end_open_runs(RunStatus::Stopped, &format!("serve was stopped by {}", signal.name()));
                eprintln!("stopped by {}", signal.name());
                return Ok(exit::OK);
            }
            ended = served.next_ended() => {
                let Some(ended) = ended else { return Ok(exit::OK) };
                if let Ok(Some(report)) = crate::report::load_run(store, &ended.run_id, crate::report::TimelinePoints::Drop) {
                    print!("{}", Table { colour: false }.render(std::slice::from_ref(&report)));
                    let _ = std::io::stdout().flush();
                }
                if once && ended.status == RunStatus::Complete {
                    return Ok(exit::OK);
                }
            }
        }
    }
}
