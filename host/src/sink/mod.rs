//! The hashing sink: a tiny_http server on loopback that serves the benchmark page and
//! takes uploads, streaming each through SHA-256 and replying with what arrived.

pub mod ceiling;
pub mod cors;
pub mod chunks;
pub mod download;
pub mod hashing;
pub mod routes;
pub mod token;

use crate::extension_files;
use hashing::{hash_body, BodyOutcome};
use std::io::Read as _;
use routes::{route, Route};
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;
use tiny_http::{Header, Method, Request, Response, Server, StatusCode};

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
    pub workers: usize,
    pub on_event: Option<EventHook>,
    /// A connection that sends nothing for this long (headers or body) is closed, so a
    /// slow or stalled client cannot pin a thread.
    pub idle_timeout: std::time::Duration,
    /// PEM certificate chain and private key: serve HTTPS instead of HTTP.
    pub tls: Option<(Vec<u8>, Vec<u8>)>,
    /// Origins (besides the sink's own) that may call it from a page: the extension's.
    pub cors_origins: Vec<String>,
}

impl Default for SinkConfig {
    fn default() -> Self {
        SinkConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            token: token::generate(),
            max_body: 16 * 1024 * 1024 * 1024,
            max_chunk: 64 * 1024 * 1024 + 64,
            workers: 8,
            on_event: None,
            idle_timeout: std::time::Duration::from_secs(30),
            tls: None,
            cors_origins: cors::extension_origins(),
        }
    }
}

pub struct Sink {
    shared: Arc<Shared>,
    server: Arc<Server>,
    workers: Vec<JoinHandle<()>>,
    addr: SocketAddr,
    token: String,
    scheme: &'static str,
}

impl Sink {
    pub fn start(config: SinkConfig) -> anyhow::Result<Sink> {
        let listener = std::net::TcpListener::bind(config.listen)
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.listen))?;
        // Accepted sockets inherit these (Linux, macOS): every read and write on a
        // connection gives up after the idle timeout.
        let sock = socket2::SockRef::from(&listener);
        sock.set_read_timeout(Some(config.idle_timeout))?;
        sock.set_write_timeout(Some(config.idle_timeout))?;
        let tls = config.tls.clone().map(|(certificate, private_key)| tiny_http::SslConfig { certificate, private_key });
        let scheme = if tls.is_some() { "https" } else { "http" };
        let server = Server::from_listener(listener, tls).map_err(|e| anyhow::anyhow!("cannot start the sink: {e}"))?;
        let addr = server.server_addr().to_ip().expect("bound to an IP address");
        let server = Arc::new(server);
        let shared = Arc::new(Shared {
            token: config.token.clone(),
            max_body: config.max_body,
            max_chunk: config.max_chunk,
            on_event: config.on_event,
            chunks: Default::default(),
            cors: cors::Cors::new(config.cors_origins.clone(), format!("{scheme}://{addr}")),
        });
        let workers = (0..config.workers.max(1))
            .map(|i| {
                let (server, shared) = (server.clone(), shared.clone());
                std::thread::Builder::new()
                    .name(format!("sink-{i}"))
                    .spawn(move || {
                        while let Ok(req) = server.recv() {
                            shared.handle(req);
                        }
                    })
                    .expect("spawn sink worker")
            })
            .collect();
        log::info!("sink listening on {scheme}://{addr}");
        Ok(Sink { shared, server, workers, addr, token: config.token, scheme })
    }

    /// Keys for encrypted-chunk runs, set over native messaging.
    pub fn chunks(&self) -> &chunks::ChunkState {
        &self.shared.chunks
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn base_url(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
    }

    pub fn upload_url(&self) -> String {
        format!("{}{}{}", self.base_url(), routes::UPLOAD_PREFIX, self.token)
    }

    /// The path part of the upload URL (token included).
    pub fn upload_path(&self) -> String {
        format!("{}{}", routes::UPLOAD_PREFIX, self.token)
    }

    pub fn page_url(&self) -> String {
        format!("{}{}", self.base_url(), routes::PAGE_PATH)
    }

    /// Stops accepting, lets in-flight handlers finish, and closes the port.
    pub fn stop(mut self) {
        self.shutdown();
    }

    /// Wakes every idle worker and waits briefly for them. A worker still inside a long
    /// upload is left to finish on its own, so shutdown never hangs on a slow client.
    fn shutdown(&mut self) {
        for _ in &self.workers {
            self.server.unblock();
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
        while self.workers.iter().any(|w| !w.is_finished()) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        for w in self.workers.drain(..) {
            if w.is_finished() {
                let _ = w.join();
            }
        }
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        self.shutdown();
    }
}

struct Shared {
    token: String,
    max_body: u64,
    max_chunk: u64,
    on_event: Option<EventHook>,
    chunks: chunks::ChunkState,
    cors: cors::Cors,
}

impl Shared {
    fn handle(&self, req: Request) {
        let origin = req.headers().iter().find(|h| h.field.equiv("Origin")).map(|h| h.value.as_str().to_owned());
        let allowed = self.cors.allow(origin.as_deref());
        if *req.method() == Method::Options {
            // Preflight: only for an allowed origin, never a wildcard.
            return match &allowed {
                Some(o) => respond(req, cors::preflight(o)),
                None => error(req, 403, "origin not allowed"),
            };
        }
        CORS_ORIGIN.with(|c| *c.borrow_mut() = allowed);
        self.route_request(req);
    }

    fn route_request(&self, mut req: Request) {
        let url = req.url().to_owned();
        let method = req.method().clone();
        match (route(&url), &method) {
            (Route::Home, Method::Get | Method::Head) => {
                let to = Header::from_bytes("Location", routes::PAGE_PATH).unwrap();
                respond(req, Response::empty(302).with_header(to))
            }
            (Route::Asset(path), Method::Get | Method::Head) => match extension_files::web_file(path) {
                Some(bytes) => {
                    let ct = header("Content-Type", extension_files::content_type(path));
                    respond(req, Response::from_data(bytes).with_header(ct).with_header(header("Cache-Control", "no-store")))
                }
                None => error(req, 404, "no such page"),
            },
            (Route::Upload { token }, Method::Put | Method::Post) => {
                if !token::matches(&self.token, token) {
                    log::warn!("upload refused: {} token", if token.is_empty() { "missing" } else { "wrong" });
                    error(req, 403, "missing or wrong upload token")
                } else if let Some(reply) = self.upload(&mut req, &url) {
                    respond(req, reply)
                }
            }
            (Route::Chunk { token, run_id, upload, index }, Method::Put | Method::Post) => {
                if !token::matches(&self.token, token) {
                    return error(req, 403, "missing or wrong upload token");
                }
                let (run_id, upload) = (run_id.to_owned(), upload.to_owned());
                match self.chunk(&mut req, &run_id, &upload, index) {
                    Ok(reply) => respond(req, reply),
                    Err((status, message)) => error(req, status, &message),
                }
            }
            (Route::Download { token }, Method::Get) => {
                if !token::matches(&self.token, token) {
                    return error(req, 403, "missing or wrong download token");
                }
                match download::parse_request(&url, self.max_body) {
                    Ok((seed, len)) => {
                        let body = download::SeededBytes::new(seed, len);
                        let resp = Response::new(StatusCode(200), vec![header("Content-Type", "application/octet-stream"), header("Cache-Control", "no-store")], body, Some(len as usize), None);
                        respond(req, resp)
                    }
                    Err(message) => error(req, 400, &message),
                }
            }
            (Route::Upload { .. } | Route::Chunk { .. } | Route::Download { .. }, _) | (Route::Home | Route::Asset(_), _) => {
                error(req, 405, "method not allowed")
            }
            (Route::NotFound, _) => error(req, 404, "not found"),
        }
    }

    /// Reads one encrypted chunk (bounded by `max_chunk`) and verifies it.
    fn chunk(&self, req: &mut Request, run_id: &str, upload: &str, index: u64) -> Result<Response<std::io::Cursor<Vec<u8>>>, (u16, String)> {
        let key = self.chunks.key(run_id).ok_or((409, format!("no key was handed over for run {run_id:?}")))?;
        if req.body_length().is_some_and(|n| n as u64 > self.max_chunk) {
            return Err((413, format!("chunk is over the {}-byte cap", self.max_chunk)));
        }
        let mut body = Vec::new();
        let read = std::io::Read::take(req.as_reader(), self.max_chunk + 1).read_to_end(&mut body);
        if let Err(e) = read {
            return Err((400, format!("chunk body could not be read: {e}")));
        }
        if body.len() as u64 > self.max_chunk {
            return Err((413, format!("chunk is over the {}-byte cap", self.max_chunk)));
        }
        let order = self.chunks.record_order(&format!("{run_id}/{upload}"), index);
        let report = chunks::verify(&key, body, index, order);
        if !report.tag_ok || report.order != chunks::Order::Ok {
            log::warn!("chunk {index} of {run_id}/{upload}: tag_ok={} order={:?}", report.tag_ok, report.order);
        }
        Ok(json(200, &serde_json::to_value(&report).expect("json")))
    }

    /// Returns the reply, or None when the client is gone and nothing can be sent.
    fn upload(&self, req: &mut Request, url: &str) -> Option<Response<std::io::Cursor<Vec<u8>>>> {
        let declared = req.body_length().map(|n| n as u64);
        if declared.is_some_and(|n| n > self.max_body) {
            return Some(json_error(413, &format!("body of {} bytes is over the {}-byte cap", declared.unwrap(), self.max_body)));
        }
        let content_type = req
            .headers()
            .iter()
            .find(|h| h.field.equiv("Content-Type"))
            .map(|h| h.value.as_str().to_owned());
        match hash_body(req.as_reader(), declared, self.max_body) {
            BodyOutcome::Complete(report) => {
                let path = url.replace(&self.token, "<token>");
                log::info!("upload {path}: {} bytes in {:.1} ms, sha256 {}", report.bytes, report.sink_ms, report.sha256);
                let mut body = serde_json::to_value(&report).expect("report serialises");
                body["content_type"] = content_type.into();
                Some(json(200, &body))
            }
            BodyOutcome::OverCap { bytes } => {
                log::warn!("upload {url}: over the cap after {bytes} bytes");
                Some(json_error(413, &format!("body is over the {}-byte cap", self.max_body)))
            }
            BodyOutcome::Aborted { bytes, reason } => {
                log::warn!("upload {url}: aborted after {bytes} bytes: {reason}");
                if let Some(hook) = &self.on_event {
                    let path = url.split('?').next().unwrap_or("").replace(&self.token, "<token>");
                    hook(SinkEvent::Aborted { bytes, path });
                }
                None
            }
        }
    }
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("static header is valid")
}

fn json(status: u16, body: &serde_json::Value) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_data(serde_json::to_vec(body).expect("json"))
        .with_status_code(StatusCode(status))
        .with_header(header("Content-Type", "application/json"))
        .with_header(header("Cache-Control", "no-store"))
}

fn json_error(status: u16, message: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    json(status, &serde_json::json!({ "error": message }))
}

fn error(req: Request, status: u16, message: &str) {
    respond(req, json_error(status, message))
}

thread_local! {
    /// The allowed Origin of the request this worker is answering, if any.
    static CORS_ORIGIN: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

fn respond<R: std::io::Read>(req: Request, mut resp: Response<R>) {
    if let Some(origin) = CORS_ORIGIN.with(|c| c.borrow_mut().take()) {
        resp.add_header(header("Access-Control-Allow-Origin", &origin));
        resp.add_header(header("Vary", "Origin"));
    }
    if let Err(e) = req.respond(resp) {
        log::debug!("could not send a reply: {e}");
    }
}
