//! `unobserved serve` and the WebKit adapter of `unobserved run`: the sink serves the
//! benchmark page with its own Run button, and the page reports to the host over HTTP
//! through the sink (`/serve/<token>/…`) instead of through an extension. The messages
//! are the native ones (PROTOCOL.md), answered by the same handlers: what a page says
//! is judged exactly as on the native path, and a page can start only what was offered.

pub mod api;
pub mod lock;
pub mod offer;
pub mod pages;
pub mod qr;
pub mod rate;
pub mod user_agent;

use crate::domain::run::RunStatus;
use crate::native::Session;
use crate::protocol::job::JobTls;
use crate::sink::{routes, Sink};
use crate::store::Store;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

pub use offer::{Offer, Start};

/// Where and what to serve.
pub struct ServeConfig {
    pub listen: SocketAddr,
    /// Names clients use to reach a sink on another address (`--public-host`).
    pub public_hosts: Vec<String>,
    pub offer: Offer,
    /// The certificate and loopback ports of the TLS transports (`run --transport h2`).
    pub tls: Option<JobTls>,
    /// Runs one address may start a minute, after its burst of three.
    pub starts_per_minute: std::num::NonZeroU32,
    /// How long a fresh page granted (a page per block) may take to take over before
    /// its run ends `incomplete` (`domain::run::PAGE_RETURN` unless `--page-return`).
    pub page_return: std::time::Duration,
}

/// A run that ended, for whoever waits on `serve` (`--once`, the printed tables).
#[derive(Debug, Clone)]
pub struct Ended {
    pub run_id: String,
    pub status: RunStatus,
}

/// A serving sink and the session behind its page messages. Dropping it stops both.
pub struct Served {
    state: Arc<Mutex<api::State>>,
    token: String,
    addr: SocketAddr,
    ended: tokio::sync::mpsc::UnboundedReceiver<Ended>,
    /// Held for as long as this serves (`lock.rs`).
    _lock: lock::ServeLock,
}

impl Served {
    pub fn start(config: ServeConfig, store: Store) -> anyhow::Result<Served> {
        let lock = lock::ServeLock::take(&store)?;
        let api = Arc::new(api::ServeApi::new(rate::Limits::new(
            config.starts_per_minute,
        )));
        let mut sink_config = crate::native::sink_config(&store, Default::default());
        sink_config.listen = config.listen;
        sink_config.public_hosts = config.public_hosts;
        sink_config.api = Some(api.clone());
        let token = sink_config.token.clone();
        let sink = Sink::start(sink_config)?;
        let addr = sink.addr();
        let (tx, ended) = tokio::sync::mpsc::unbounded_channel();
        let session = Session {
            store,
            sink,
            job_file: None,
            tls: Default::default(),
            job_tls: config.tls,
            started: Default::default(),
            job: None,
            remote: Default::default(),
            own_processes: crate::conditions::this_process(),
            browser_gap: None,
            conditions: Default::default(),
            job_modules: Vec::new(),
            state_dir: crate::platform::state::state_dir().ok(),
        };
        let state = Arc::new(Mutex::new(api::State::new(session, config.offer, tx)));
        api.attach(&state);
        watch_page_returns(Arc::downgrade(&state), config.page_return);
        Ok(Served {
            state,
            token,
            addr,
            ended,
            _lock: lock,
        })
    }

    /// The session token: every page message and upload carries it.
    pub fn token(&self) -> &str {
        &self.token
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL at `host` (a name or address clients reach this sink by), the
    /// session token in its fragment: the fragment never travels in a request line.
    pub fn page_url(&self, host: &str) -> String {
        format!(
            "http://{host}:{}{}#{}",
            self.addr.port(),
            routes::SERVE_PAGE_PATH,
            self.token
        )
    }

    /// The next run that ends.
    pub async fn next_ended(&mut self) -> Option<Ended> {
        self.ended.recv().await
    }

    /// Every run a page started and did not end is recorded as `status` (Ctrl-C).
    pub fn end_open_runs(&self, status: RunStatus, reason: &str) {
        self.state.lock().unwrap().end_open_runs(status, reason);
    }
}

/// Ends each run whose granted fresh page did not take over within `limit`, looking a
/// few times a second, for as long as the state lives (the `Served` holding it).
fn watch_page_returns(state: std::sync::Weak<Mutex<api::State>>, limit: std::time::Duration) {
    let every = (limit / 4).clamp(
        std::time::Duration::from_millis(50),
        std::time::Duration::from_secs(1),
    );
    std::thread::spawn(move || loop {
        std::thread::sleep(every);
        let Some(state) = state.upgrade() else { return };
        let mut state = state.lock().unwrap();
        state.end_overdue_pages(std::time::Instant::now(), limit);
    });
}
