//! The hashing sink: an HTTP server on loopback that serves the benchmark page and takes
//! uploads, streaming each through SHA-256 and replying with what arrived.
//!
//! hyper on a tokio runtime of its own: one task per connection, a deadline on request
//! headers, an idle deadline on body reads, and a cap on open connections. (It replaced
//! tiny_http, whose four-thread pool let a burst of slow clients stall everyone else;
//! BENCHMARKS.md and SECURITY.md have the figures.)

pub mod answers;
pub mod api;
pub mod ceiling;
pub mod ceiling_tls;
mod chunk_body;
pub mod chunks;
pub mod connections;
pub mod cors;
pub mod download;
pub mod expected;
mod handler;
pub mod hash_queue;
pub mod hashing;
pub mod headers;
pub mod hosts;
pub mod ledger;
pub mod module_sources;
mod module_upload;
pub mod parts;
pub mod pinned;
mod probe;
mod recording;
pub mod refusals;
pub mod remote_ledger;
pub mod reply;
pub use reply::{EXPOSED_HEADERS, HEADER_BYTES, HEADER_HASH_BOUND, HEADER_SINK_MS};
pub mod routes;
mod server;
pub mod timeline;
pub mod token;

use hosts::Scheme;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// Something the sink noticed that the page may never report.
#[derive(Debug, Clone, PartialEq)]
pub enum SinkEvent {
    Aborted { bytes: u64, path: String },
}

pub type EventHook = Arc<dyn Fn(SinkEvent) + Send + Sync>;

pub struct SinkConfig {
    pub listen: SocketAddr,
    pub token: String,
    pub max_body: u64,
    /// Encrypted chunks are held whole to decrypt them; this bounds that.
    pub max_chunk: u64,
    /// Connections beyond this get 503 at once.
    pub max_connections: usize,
    pub on_event: Option<EventHook>,
    /// Request headers must arrive within this, and a body may not go silent for longer,
    /// so a slow or stalled client cannot hold a connection.
    pub idle_timeout: Duration,
    /// PEM certificate chain and private key: serve HTTPS instead of HTTP.
    pub tls: Option<(Vec<u8>, Vec<u8>)>,
    /// Over TLS, offer HTTP/2 in ALPN (else HTTP/1.1 only: the h1-tls transport).
    pub http2: bool,
    /// Origins (besides the sink's own) that may call it from a page: the extension's.
    pub cors_origins: Vec<String>,
    /// Whether Firefox extension pages, whose origins cannot be listed, may upload.
    pub firefox_pages: cors::FirefoxPages,
    /// Bytes received but not yet hashed, across all uploads (`hash_queue.rs`).
    pub hash_queue_bytes: u64,
    /// Test seam: make the hasher sleep this long per MiB, as on a slow CPU.
    pub slow_hash: Option<Duration>,
    /// Names clients reach a non-loopback sink by (`--public-host`); every other Host
    /// header is refused.
    pub public_hosts: Vec<String>,
    /// After this long, an upload slower than 16 KiB/s on average is cut off.
    pub min_rate_grace: Duration,
    /// Who answers the page's messages (`/serve/<token>/…`): `unobserved serve`.
    pub api: Option<Arc<dyn api::Api>>,
    /// Where the sink records what it received under each upload id; shared by every
    /// sink of a session, read by the host when it stores samples.
    pub ledger: Arc<ledger::Ledger>,
    /// Answer `/ledger/<token>`, so a host elsewhere can claim this sink's records: only
    /// `unobserved sink`, whose host is another process (`remote_ledger.rs`).
    pub ledger_route: bool,
}

impl Default for SinkConfig {
    fn default() -> Self {
        SinkConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            token: token::generate(),
            max_body: 16 * 1024 * 1024 * 1024,
            max_chunk: 64 * 1024 * 1024 + 64,
            max_connections: 256,
            on_event: None,
            idle_timeout: Duration::from_secs(30),
            tls: None,
            http2: true,
            cors_origins: cors::extension_origins(),
            firefox_pages: cors::FirefoxPages::Refused,
            hash_queue_bytes: hash_queue::default_capacity(),
            slow_hash: None,
            public_hosts: Vec::new(),
            min_rate_grace: Duration::from_secs(30),
            api: None,
            ledger: Default::default(),
            ledger_route: false,
        }
    }
}

/// What every request handler needs.
pub(crate) struct Shared {
    pub token: String,
    /// Carried by the host's own ceiling uploads (`Sink::own_upload_path`), which a
    /// page's rate does not limit. Never sent to a page.
    pub own_key: String,
    pub max_body: u64,
    pub max_chunk: u64,
    pub idle_timeout: Duration,
    pub on_event: Option<EventHook>,
    pub chunks: chunks::ChunkState,
    pub cors: cors::Cors,
    pub hash_queue: hash_queue::HashQueue,
    pub hosts: hosts::Hosts,
    pub refusals: refusals::Refusals,
    pub min_rate_grace: Duration,
    pub api: Option<Arc<dyn api::Api>>,
    pub ledger: Arc<ledger::Ledger>,
    pub ledger_route: bool,
    /// Record each upload's arrival timeline (off only for the benchmark, `timeline.rs`).
    pub timeline: bool,
    /// The runs' workload modules, for their pages to import.
    pub modules: module_sources::ModuleSources,
}

pub struct Sink {
    shared: Arc<Shared>,
    addr: SocketAddr,
    scheme: Scheme,
    running: Option<server::Running>,
}

impl Sink {
    pub fn start(config: SinkConfig) -> anyhow::Result<Sink> {
        let listener = std::net::TcpListener::bind(config.listen)
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.listen))?;
        let addr = listener.local_addr()?;
        let tls = config
            .tls
            .as_ref()
            .map(|(cert, key)| server::tls_acceptor(cert, key, config.http2))
            .transpose()?;
        let scheme = match tls {
            Some(_) => Scheme::Https,
            None => Scheme::Http,
        };
        let shared = Arc::new(Shared {
            token: config.token,
            own_key: token::generate(),
            max_body: config.max_body,
            max_chunk: config.max_chunk,
            idle_timeout: config.idle_timeout,
            on_event: config.on_event,
            chunks: Default::default(),
            cors: cors::Cors::new(config.cors_origins, config.firefox_pages),
            hash_queue: hash_queue::HashQueue::new(config.hash_queue_bytes, config.slow_hash),
            hosts: hosts::Hosts::new(
                addr,
                scheme,
                &crate::platform::net::interface_addresses(),
                &config.public_hosts,
            ),
            refusals: Default::default(),
            min_rate_grace: config.min_rate_grace,
            api: config.api,
            ledger: config.ledger,
            ledger_route: config.ledger_route,
            timeline: timeline::enabled(),
            modules: Default::default(),
        });
        timeline::epoch();
        let running = server::spawn(listener, shared.clone(), tls, config.max_connections)?;
        log::info!("sink listening on {scheme}://{addr}");
        Ok(Sink {
            shared,
            addr,
            scheme,
            running: Some(running),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn base_url(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
    }

    /// The path part of the upload URL (token included).
    pub fn upload_path(&self) -> String {
        format!(
            "{}{}",
            crate::domain::sink_url::UPLOAD_PREFIX,
            self.shared.token
        )
    }

    /// The upload path for the host's own uploads (the ceiling): not rate-limited as a
    /// page's test uploads are.
    pub fn own_upload_path(&self) -> String {
        format!("{}?own={}", self.upload_path(), self.shared.own_key)
    }

    pub fn upload_url(&self) -> String {
        format!("{}{}", self.base_url(), self.upload_path())
    }

    pub fn page_url(&self) -> String {
        format!("{}{}", self.base_url(), routes::PAGE_PATH)
    }

    /// Keys for encrypted-chunk runs, set over native messaging.
    pub fn chunks(&self) -> &chunks::ChunkState {
        &self.shared.chunks
    }

    /// The workload modules this sink serves to runs' pages.
    pub fn modules(&self) -> &module_sources::ModuleSources {
        &self.shared.modules
    }

    /// What this sink (and every sink sharing its ledger) received, by upload id.
    pub fn ledger(&self) -> &Arc<ledger::Ledger> {
        &self.shared.ledger
    }

    /// Stops accepting and closes the port; in-flight uploads get a moment to finish.
    pub fn stop(mut self) {
        if let Some(r) = self.running.take() {
            r.stop();
        }
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            r.stop();
        }
    }
}
