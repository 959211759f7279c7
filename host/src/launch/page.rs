//! The run's own `serve` session, for a browser without native messaging (WebKit): the
//! sink serves the page, offers exactly this run (under the run's id, started by the
//! page at once), and the page's messages reach the store through the host's handlers.
//! `unobserved run` then follows the store as it does for every browser.

use super::browsers::Launchable;
use super::display::Display;
use crate::domain::plan::Plan;
use crate::domain::sample::Environment;
use crate::protocol::job::JobTls;
use crate::serve::{Offer, ServeConfig, Served, Start};
use crate::store::Store;
use anyhow::Result;
use std::path::Path;

pub struct PageSession {
    /// Kept for the run: dropping it stops the sink.
    pub served: Served,
    pub display: Display,
    pub url: String,
}

pub fn start(
    browser: &Launchable,
    program: &Path,
    plan: &Plan,
    run_id: &str,
    tls: Option<JobTls>,
    store: &Store,
) -> Result<PageSession> {
    let display = Display::find_or_start()?;
    // The user agent does not name the engine's version; the binary does.
    let env = super::webkit::version(program, display.name()).map(|version| Environment {
        browser: browser.display.to_owned(),
        browser_version: version,
        ..Environment::default()
    });
    let served = Served::start(
        ServeConfig {
            listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
            public_hosts: Vec::new(),
            offer: Offer {
                plan: plan.clone(),
                start: Start::Auto,
                run_id: Some(run_id.to_owned()),
                env,
            },
            tls,
            starts_per_minute: crate::serve::rate::STARTS_PER_MINUTE,
            page_return: crate::domain::run::PAGE_RETURN,
        },
        store.clone(),
    )?;
    let url = served.page_url("127.0.0.1");
    Ok(PageSession {
        served,
        display,
        url,
    })
}
