//! One request: route it, check the token, and answer. Upload bodies go through the
//! sink's hash queue (`hash_queue.rs`) to a hashing thread per upload; the reply's
//! headers leave at the last body byte and the digest follows in its body.

use super::cors::{self, Caller};
use super::hashing::BodyReport;
use super::headers::Repeated;
use super::hosts::Misdirected;
use super::ledger::{Entry, UploadReport};
use super::recording::{self, Pending};
use super::refusals::Refusal;
use super::reply::{empty, full, json_error, Reply};
use super::reply::{HEADER_BYTES, HEADER_HASH_BOUND, HEADER_SINK_MS};
use super::routes::{self, route, Route};
use super::timeline::Recorder;
use super::{chunk_body, chunks, download, module_upload, token, Shared, SinkEvent};
use crate::platform::extension_files;
use crate::platform::untrusted::Clipped;
use bytes::Bytes;
use http_body::Frame;
use http_body_util::{combinators::BoxBody, BodyExt, StreamBody};
use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

pub async fn handle(req: Request<Incoming>, shared: Arc<Shared>) -> Reply {
    let caller = match admit(&req, &shared) {
        Ok(caller) => caller,
        Err(why) => return refused(&shared, why),
    };
    if req.method() == Method::OPTIONS
        && !req.headers().contains_key("access-control-request-method")
    {
        if let Route::Tus { .. } = route(req.uri().path()) {
            // tus discovery, not a CORS preflight.
            let mut reply = tus_options_or_refusal(&req, &shared);
            if let Caller::Listed(origin) = caller {
                cors::expose(&mut reply, &origin);
            }
            return reply;
        }
    }
    if req.method() == Method::OPTIONS {
        // Preflight: only for a listed origin, never a wildcard.
        return match caller {
            Caller::Listed(origin) => cors::preflight(&origin),
            _ => json_error(403, "origin not allowed"),
        };
    }
    let mut reply = route_request(req, &shared).await;
    if let Caller::Listed(origin) = caller {
        cors::expose(&mut reply, &origin);
    }
    reply
}

/// The checks before any route: the request names this sink, unambiguously, and comes
/// from no foreign page.
fn admit<B>(req: &Request<B>, shared: &Shared) -> Result<Caller, Refusal> {
    // DNS rebinding: a name that resolves to us is not a name we answer to.
    match shared.hosts.check_target(req.uri(), req.headers()) {
        Ok(()) => {}
        Err(Misdirected::NotOurs) => return Err(Refusal::Host),
        Err(Misdirected::Ambiguous) => return Err(Refusal::Ambiguous),
    }
    // Simple (no-preflight) requests from other pages still reach us; refuse them
    // before the token is looked at.
    let token_route = route(req.uri().path()).token().is_some();
    match shared
        .cors
        .caller(&shared.hosts, req.headers(), token_route)
    {
        Ok(Caller::Foreign) => Err(Refusal::Origin),
        Ok(caller) => Ok(caller),
        Err(Repeated(_)) => Err(Refusal::Ambiguous),
    }
}

/// The reply to a request `admit` refused, counted.
fn refused(shared: &Shared, why: Refusal) -> Reply {
    shared.refusals.record(why);
    match why {
        Refusal::Host => json_error(421, "this sink does not answer to that Host"),
        Refusal::Ambiguous => json_error(
            400,
            "a repeated Host or Origin header, or a Host the target contradicts",
        ),
        Refusal::Origin => json_error(403, "origin not allowed"),
        other => json_error(403, other.label()),
    }
}

fn tus_options_or_refusal(req: &Request<Incoming>, shared: &Shared) -> Reply {
    let route = route(req.uri().path());
    wrong_token(shared, &route, "upload").unwrap_or_else(|| module_upload::tus_options(shared))
}

/// The request is for one of the token-guarded routes, with the right token.
pub fn carries_token(req: &Request<Incoming>, shared: &Shared) -> bool {
    route(req.uri().path())
        .token()
        .is_some_and(|t| token::matches(&shared.token, t))
}

/// The refusal for a guarded route whose token is missing or wrong, counted.
fn wrong_token(shared: &Shared, route: &Route, what: &str) -> Option<Reply> {
    let token = route.token()?;
    if token::matches(&shared.token, token) {
        return None;
    }
    shared.refusals.record(Refusal::Token);
    Some(json_error(403, &format!("missing or wrong {what} token")))
}

/// The request's path and query, or its whole URI when it has none.
fn path_and_query(req: &Request<Incoming>) -> String {
    req.uri()
        .path_and_query()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| req.uri().to_string())
}

async fn route_request(req: Request<Incoming>, shared: &Shared) -> Reply {
    let path_and_query = path_and_query(&req);
    let method = req.method().clone();
    let route = route(&path_and_query);
    match (route, &method) {
        (Route::Home, &Method::GET | &Method::HEAD) => home(),
        (Route::Asset(path), &Method::GET) if is_serve_page(path, &req, shared) => {
            serve_page(path, shared)
        }
        (Route::Asset(path), &Method::GET | &Method::HEAD) => asset(path),
        (Route::Upload { .. }, &Method::PUT | &Method::POST) => {
            if let Some(refused) = wrong_token(shared, &route, "upload") {
                return refused;
            }
            limited_upload(req, shared, &path_and_query).await
        }
        (
            Route::Chunk {
                run_id,
                upload,
                index,
                ..
            },
            &Method::PUT | &Method::POST,
        ) => {
            if let Some(refused) = wrong_token(shared, &route, "upload") {
                return refused;
            }
            let (run_id, upload) = (run_id.to_owned(), upload.to_owned());
            chunk(req, shared, &run_id, &upload, index).await
        }
        (Route::Download { .. }, &Method::GET) => {
            if let Some(refused) = wrong_token(shared, &route, "download") {
                return refused;
            }
            serve_download(shared, &path_and_query)
        }
        (Route::Api { what, .. }, &Method::GET | &Method::POST) => {
            if let Some(refused) = wrong_token(shared, &route, "session") {
                return refused;
            }
            let what = what.to_owned();
            super::api::call(req, shared, &what).await
        }
        (Route::Ledger { .. }, &Method::PUT | &Method::POST) if shared.ledger_route => {
            if let Some(refused) = wrong_token(shared, &route, "ledger") {
                return refused;
            }
            super::remote_ledger::answer(&shared.ledger, &path_and_query)
        }
        (Route::ModuleSource { .. } | Route::Module { .. } | Route::Tus { .. }, _) => {
            module_routes(req, shared, route).await
        }
        (Route::NotFound, _) => json_error(404, "not found"),
        // Only a sink other hosts claim from (`unobserved sink`) has a ledger route.
        (Route::Ledger { .. }, _) if !shared.ledger_route => json_error(404, "not found"),
        _ => json_error(405, "method not allowed"),
    }
}

/// `/` sends the browser on to the benchmark page.
fn home() -> Reply {
    Response::builder()
        .status(302)
        .header("location", routes::PAGE_PATH)
        .body(empty())
        .unwrap()
}

/// A workload module's source, or one of its uploads (`module_upload.rs`).
async fn module_routes(req: Request<Incoming>, shared: &Shared, route: Route<'_>) -> Reply {
    if let Some(refused) = wrong_token(shared, &route, "module") {
        return refused;
    }
    match (route, req.method()) {
        (Route::ModuleSource { run_id, name, .. }, &Method::GET) => {
            shared.modules.answer(run_id, name)
        }
        (Route::ModuleSource { .. }, _) => json_error(405, "method not allowed"),
        _ => module_upload::answer(req, shared, route).await,
    }
}

/// One of the bench page's files, from the binary.
fn asset(path: &str) -> Reply {
    match extension_files::web_file(path) {
        Some(bytes) => Response::builder()
            .header("content-type", extension_files::content_type(path))
            .header("cache-control", "no-store")
            .body(full(Bytes::from_static(bytes)))
            .unwrap(),
        None => json_error(404, "no such page"),
    }
}

/// A navigation to the page of `unobserved serve`: it gets a copy with a load token.
fn is_serve_page(path: &str, req: &Request<Incoming>, shared: &Shared) -> bool {
    shared.api.is_some()
        && Some(path) == routes::SERVE_PAGE_PATH.strip_prefix('/')
        && super::api::is_navigation(req.headers())
}

/// The page of `serve`, with the load token its API made for this copy.
fn serve_page(path: &str, shared: &Shared) -> Reply {
    let filled = extension_files::web_file(path).and_then(|page| {
        let load = shared.api.as_ref()?.page_load()?;
        super::api::with_load(page, &load)
    });
    match filled {
        Some(bytes) => Response::builder()
            .header("content-type", extension_files::content_type(path))
            .header("cache-control", "no-store")
            .body(full(Bytes::from(bytes)))
            .unwrap(),
        None => asset(path),
    }
}

/// An upload, once its token is checked: a test upload past serve's rate gets 429.
async fn limited_upload(req: Request<Incoming>, shared: &Shared, path_and_query: &str) -> Reply {
    if !probe_allowed(&req, shared, path_and_query) {
        shared.refusals.record(Refusal::ProbeRate);
        linger(req.into_body());
        return json_error(429, "too many test uploads; wait a moment");
    }
    reserved_upload(req, shared, path_and_query).await
}

/// An upload that names no run (a page's test upload) is rate-limited where the sink
/// has a page API (`serve`), as starts are; the host's own ceiling uploads carry the
/// sink's own key (`Sink::own_upload_path`) and are not.
fn probe_allowed(req: &Request<Incoming>, shared: &Shared, path_and_query: &str) -> bool {
    let Some(api) = &shared.api else { return true };
    if !matches!(super::ledger::UploadTag::of_query(path_and_query), Ok(None)) {
        return true;
    }
    let own = super::ledger::query_param(path_and_query, "own");
    if own.is_some_and(|key| token::matches(&shared.own_key, key)) {
        return true;
    }
    api.allow_probe(req.extensions().get::<super::api::Peer>().map(|p| p.0))
}

/// An upload whose id the ledger has reserved; a refused reservation drains the body
/// before its reply, as every early reply does.
async fn reserved_upload(req: Request<Incoming>, shared: &Shared, path_and_query: &str) -> Reply {
    let path = path_and_query
        .replace(&shared.token, "<token>")
        .replace(&shared.own_key, "<own>");
    match recording::reserve(shared, path_and_query) {
        Ok(pending) => upload(req, shared, &path, pending).await,
        Err((status, message)) => {
            linger(req.into_body());
            json_error(status, &message)
        }
    }
}

/// A seeded download, counted into the ledger as it is sent when it names an upload id.
fn serve_download(shared: &Shared, path_and_query: &str) -> Reply {
    let (seed, len) = match download::parse_request(path_and_query, download::MAX_BYTES) {
        Ok(asked) => asked,
        Err(message) => return json_error(400, &message),
    };
    let serving = match recording::reserve(shared, path_and_query) {
        Ok(pending) => recording::Serving::new(pending, seed, len),
        Err((status, message)) => return json_error(status, &message),
    };
    Response::builder()
        .header("content-type", "application/octet-stream")
        .header("cache-control", "no-store")
        .header("content-length", len)
        .body(download_body(
            download::SeededBytes::new(seed, len),
            serving,
        ))
        .unwrap()
}

pub(super) fn declared_length(req: &Request<Incoming>) -> Option<u64> {
    req.headers()
        .get("content-length")?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// The protocol the upload arrived over, as ALPN names it: "h2" or "http/1.1".
fn protocol_of(version: hyper::Version) -> &'static str {
    match version {
        hyper::Version::HTTP_2 => "h2",
        hyper::Version::HTTP_3 => "h3",
        hyper::Version::HTTP_10 => "http/1.0",
        _ => "http/1.1",
    }
}

async fn upload(
    req: Request<Incoming>,
    shared: &Shared,
    path: &str,
    mut pending: Option<Pending>,
) -> Reply {
    let request_start = Instant::now();
    let declared = declared_length(&req);
    if let Some(n) = declared.filter(|&n| n > shared.max_body) {
        // Dropped, `pending` records the upload as cut short with nothing received.
        linger(req.into_body());
        return json_error(
            413,
            &format!("body of {n} bytes is over the {}-byte cap", shared.max_body),
        );
    }
    let about = About {
        content_type: req
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            // Header text is the client's: the record keeps a bounded prefix.
            .map(|t| {
                t.chars()
                    .take(crate::domain::limits::INPUT.content_type_chars)
                    .collect()
            }),
        protocol: protocol_of(req.version()),
        request_start,
    };
    let mut hasher = shared.hash_queue.start();
    let body = req.into_body();
    let got = match read_body(
        body,
        shared,
        path,
        request_start,
        &mut hasher,
        shared.max_body,
    )
    .await
    {
        Ok(got) => got,
        Err(over_cap) => return over_cap,
    };
    if let Some(p) = pending.as_mut() {
        p.bytes = got.bytes;
    }
    let short = declared.is_some_and(|n| got.bytes < n).then(|| {
        format!(
            "body ended after {} of {} bytes",
            got.bytes,
            declared.unwrap_or(0)
        )
    });
    match got.failure.clone().or(short) {
        Some(reason) => aborted(shared, path, got.bytes, &reason),
        None => answer(path, got, about, hasher, pending),
    }
}

/// What the verdict says of an upload besides its digest.
struct About {
    content_type: Option<String>,
    protocol: &'static str,
    request_start: Instant,
}

/// What arrived of an upload body, when its first and last bytes did, and why it
/// stopped early if it did.
pub(super) struct Received {
    pub bytes: u64,
    pub first: Option<Instant>,
    pub last: Instant,
    pub failure: Option<String>,
    /// The arrival record, unless the benchmark turned it off.
    pub timeline: Option<Recorder>,
}

/// Reads the body into the hasher, within the idle timeout, the minimum rate and `cap`
/// bytes; over the cap, the 413 to send instead.
pub(super) async fn read_body(
    mut body: Incoming,
    shared: &Shared,
    path: &str,
    request_start: Instant,
    hasher: &mut super::hash_queue::BodyHasher,
    cap: u64,
) -> Result<Received, Reply> {
    let mut got = Received {
        bytes: 0,
        first: None,
        last: Instant::now(),
        failure: None,
        timeline: shared.timeline.then(|| Recorder::new(request_start)),
    };
    got.failure = loop {
        let data = match tokio::time::timeout(shared.idle_timeout, body.frame()).await {
            Err(_) => break Some(format!("no body bytes for {:?}", shared.idle_timeout)),
            Ok(None) => break None,
            Ok(Some(Err(e))) => break Some(with_causes(&e)),
            Ok(Some(Ok(frame))) => match frame.into_data() {
                Ok(data) => data,
                Err(_) => continue,
            },
        };
        got.last = Instant::now();
        if let Some(slow) = too_slow(shared, got.bytes, got.last - request_start) {
            break Some(slow);
        }
        got.first.get_or_insert(got.last);
        got.bytes += data.len() as u64;
        if let Some(timeline) = got.timeline.as_mut() {
            timeline.frame(got.last, data.len());
        }
        if got.bytes > cap {
            log::warn!(
                "upload {}: over the cap after {} bytes",
                Clipped(path),
                got.bytes
            );
            linger(body);
            return Err(json_error(413, &format!("body is over the {cap}-byte cap")));
        }
        hasher.push(data).await;
    };
    Ok(got)
}

/// An error and every cause under it, "outer: inner: …". hyper's body error alone says
/// only "error reading a body from connection"; the HTTP/2 or I/O error under it says
/// why (the client reset the stream, the connection closed, …).
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// A body trickled a byte at a time would keep the idle timeout happy forever: past the
/// grace period, it must keep up a minimum rate.
fn too_slow(shared: &Shared, bytes: u64, elapsed: std::time::Duration) -> Option<String> {
    (elapsed > shared.min_rate_grace && (bytes as f64) < MIN_RATE * elapsed.as_secs_f64()).then(
        || {
            format!(
                "slower than {} KiB/s after {:?}",
                MIN_RATE as u64 / 1024,
                shared.min_rate_grace
            )
        },
    )
}

/// An upload that ended before its last byte: logged, handed to the event hook, and
/// answered 400.
fn aborted(shared: &Shared, path: &str, bytes: u64, reason: &str) -> Reply {
    log::warn!(
        "upload {}: aborted after {bytes} bytes: {reason}",
        Clipped(path)
    );
    if let Some(hook) = shared.on_event.clone() {
        let path = path.split('?').next().unwrap_or("").to_owned();
        // The hook writes to the store (fsync): keep it off the async threads.
        tokio::task::spawn_blocking(move || hook(SinkEvent::Aborted { bytes, path }));
    }
    json_error(400, &format!("upload aborted after {bytes} bytes"))
}

/// The last byte is in: the status and headers go now, so the page's timed span ends
/// here; the digest follows in the body when the hasher is done.
fn answer(
    path: &str,
    got: Received,
    about: About,
    hasher: super::hash_queue::BodyHasher,
    pending: Option<Pending>,
) -> Reply {
    let (bytes, last) = (got.bytes, got.last);
    let sink_ms = got
        .first
        .map(|f| (last - f).as_secs_f64() * 1000.0)
        .unwrap_or(0.0);
    // From the request's headers to its last byte: a browser that prepares the body
    // after sending the headers shows the gap here, not in sink_ms.
    let start = about.request_start;
    let request_ms = (last.max(start) - start).as_secs_f64() * 1000.0;
    let (hash_bound, digest) = hasher.finish();
    let path = path.to_owned();
    let timeline = got.timeline.map(Recorder::finish);
    let verdict = async move {
        let mut body: BodyReport = digest
            .await
            .expect("hasher thread")
            .finish(sink_ms, hash_bound);
        body.timeline = timeline;
        let report = UploadReport {
            body,
            content_type: about.content_type,
            request_ms,
            protocol: about.protocol.into(),
        };
        log::info!(
            "upload {}: {} bytes in {:.1} ms, sha256 {}{}",
            Clipped(path.as_str()),
            report.body.bytes,
            report.body.sink_ms,
            report.body.sha256,
            if hash_bound { " (hash-bound)" } else { "" }
        );
        // The reply is the record: what the page is told is what the host will read.
        let value = serde_json::to_value(&report).expect("report serialises");
        if let Some(p) = pending {
            p.settle(Entry::Body(Box::new(report)));
        }
        value
    };
    deferred_json(
        &[
            (HEADER_BYTES, bytes.to_string()),
            (HEADER_SINK_MS, format!("{sink_ms:.3}")),
            (HEADER_HASH_BOUND, u8::from(hash_bound).to_string()),
        ],
        verdict,
    )
}

/// An upload must average at least this many bytes a second once the sink's grace
/// period has passed (a trickled body otherwise holds a connection forever).
pub const MIN_RATE: f64 = 16.0 * 1024.0;
/// After an early error reply, read (and drop) at most this much of the body, for at
/// most LINGER_FOR, so a client that writes its whole body before reading still gets
/// the status instead of a reset (nginx's lingering close).
const LINGER_BYTES: u64 = 64 << 20;
const LINGER_FOR: std::time::Duration = std::time::Duration::from_secs(2);

pub(super) fn linger(mut body: Incoming) {
    tokio::spawn(async move {
        let mut drained = 0u64;
        let until = tokio::time::Instant::now() + LINGER_FOR;
        while drained < LINGER_BYTES {
            match tokio::time::timeout_at(until, body.frame()).await {
                Ok(Some(Ok(frame))) => {
                    drained += frame.data_ref().map_or(0, |d| d.len() as u64);
                }
                _ => break,
            }
        }
    });
}

/// A 200 whose status and `headers` go out now and whose JSON body follows when
/// `body` resolves (chunked transfer encoding).
fn deferred_json(
    headers: &[(&str, String)],
    body: impl Future<Output = serde_json::Value> + Send + 'static,
) -> Reply {
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let value = body.await;
        let _ = tx.send(Bytes::from(serde_json::to_vec(&value).expect("json")));
    });
    let mut reply = Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .header("cache-control", "no-store");
    for (name, value) in headers {
        reply = reply.header(*name, value);
    }
    // One frame, sent when its bytes arrive; the sender only goes away if the task
    // panicked, and then the body ends empty.
    let frame = futures_util::StreamExt::filter_map(futures_util::stream::once(rx), |bytes| {
        std::future::ready(bytes.ok().map(|b| Ok(Frame::data(b))))
    });
    reply.body(StreamBody::new(frame).boxed()).unwrap()
}

/// The run's chunk key and the upload's place in the ledger, or the refusal.
fn admit_chunk(
    shared: &Shared,
    run_id: &str,
    upload: &str,
) -> Result<([u8; 32], crate::domain::upload_id::UploadId), recording::Refusal> {
    let Some(key) = shared.chunks.key(run_id) else {
        return Err((
            409,
            format!("no key was handed over for run {:?}", Clipped(run_id)),
        ));
    };
    recording::admit_chunk(shared, run_id, upload).map(|file| (key, file))
}

async fn chunk(
    req: Request<Incoming>,
    shared: &Shared,
    run_id: &str,
    upload: &str,
    index: u64,
) -> Reply {
    let (key, file) = match admit_chunk(shared, run_id, upload) {
        Ok(admitted) => admitted,
        Err((status, message)) => return json_error(status, &message),
    };
    let request_start = Instant::now();
    let declared = declared_length(&req);
    if declared.is_some_and(|n| n > shared.max_chunk) {
        return json_error(
            413,
            &format!("chunk is over the {}-byte cap", shared.max_chunk),
        );
    }
    let (body, timeline) =
        match chunk_body::read(req.into_body(), shared, request_start, declared).await {
            Ok(got) => got,
            Err(refused) => return refused,
        };
    let Some(order) = shared
        .chunks
        .record_order(&format!("{run_id}/{upload}"), index)
    else {
        return json_error(429, "too many encrypted uploads in flight");
    };
    // Headers at the last byte, as for plain uploads: decrypting and hashing the chunk
    // happen after the page's timed span, and the verdict follows in the body.
    let bytes = body.len();
    let (run_id, upload) = (run_id.to_owned(), upload.to_owned());
    let ledger = shared.ledger.clone();
    let verdict = async move {
        let mut report =
            tokio::task::spawn_blocking(move || chunks::verify(&key, body, index, order))
                .await
                .expect("verify");
        report.timeline = timeline;
        ledger.add_chunk(&file, &report);
        if !report.tag_ok || report.order != chunks::Order::Ok {
            log::warn!(
                "chunk {index} of {}/{}: tag_ok={} order={:?}",
                Clipped(run_id.as_str()),
                Clipped(upload.as_str()),
                report.tag_ok,
                report.order
            );
        }
        serde_json::to_value(&report).expect("json")
    };
    deferred_json(&[(HEADER_BYTES, bytes.to_string())], verdict)
}

/// A download body generated as it is sent, 256 KiB at a time: each frame is made when
/// hyper asks for it, never ahead.
/// What it handed on is counted in `serving`, which the ledger records when the body
/// ends or is dropped.
fn download_body(
    bytes: download::SeededBytes,
    serving: recording::Serving,
) -> BoxBody<Bytes, Infallible> {
    let frames = futures_util::stream::unfold((bytes, serving), |(mut bytes, mut serving)| {
        let mut buf = vec![0u8; 256 * 1024];
        let n = std::io::Read::read(&mut bytes, &mut buf).expect("keystream never fails");
        buf.truncate(n);
        // Counted as handed to hyper, which asks for the next frame only once it has
        // taken this one.
        serving.record.bytes_sent += n as u64;
        let frame = Ok(Frame::data(Bytes::from(buf)));
        std::future::ready((n > 0).then_some((frame, (bytes, serving))))
    });
    StreamBody::new(frames).boxed()
}

#[cfg(test)]
mod tests {
    /// Like hyper's body error: a message of its own, the reason underneath.
    #[derive(Debug)]
    struct BodyError(std::io::Error);

    impl std::fmt::Display for BodyError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("error reading a body from connection")
        }
    }

    impl std::error::Error for BodyError {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn an_aborted_body_is_logged_with_every_cause_under_it() {
        let reset = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "stream reset");
        assert_eq!(
            super::with_causes(&BodyError(reset)),
            "error reading a body from connection: stream reset"
        );
        let alone = std::io::Error::other("closed");
        assert_eq!(super::with_causes(&alone), "closed");
    }
}
