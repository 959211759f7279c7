//! The page ↔ host messages of `unobserved serve`: `GET` or `POST /serve/<token>/<what>`.
//! The sink does what it does for every request (Host, Origin, token), caps the body,
//! and hands the rest to the `Api` its owner gave it, off the async threads: an answer
//! may write the store (fsync) or measure the sink's own ceiling.

use super::reply::{json, json_error, Reply};
use super::Shared;
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::HeaderMap;
use hyper::{Method, Request};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The largest message a page may send (a batch of samples is a few KiB).
pub const MAX_API_BODY: usize = 256 * 1024;

/// Who sent a request: the TCP peer's address, put in each request's extensions by the
/// accept loop.
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub IpAddr);

/// The two ends of the TCP connection a request came over: this sink's address and
/// the peer's (`unobserved serve` finds a same-machine page's browser by them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connection {
    pub local: SocketAddr,
    pub peer: SocketAddr,
}

/// One page message, as the sink received it.
pub struct ApiRequest {
    pub method: Method,
    /// The path after `/serve/<token>/`.
    pub what: String,
    pub peer: Option<IpAddr>,
    pub connection: Option<Connection>,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// The answer: an HTTP status and a JSON body.
pub struct ApiReply {
    pub status: u16,
    pub body: serde_json::Value,
}

pub trait Api: Send + Sync {
    /// Called on a blocking thread.
    fn handle(&self, request: ApiRequest) -> ApiReply;

    /// Whether `peer` may send an upload that names no run now (a page's check that
    /// the sink takes uploads; the host's own ceiling uploads are not asked).
    fn allow_probe(&self, peer: Option<IpAddr>) -> bool;

    /// A load token for one copy of the page about to be served to a navigation, put
    /// into it (`PAGE_LOAD_SLOT`): a page per block over HTTP. None: the page as it is.
    fn page_load(&self) -> Option<String> {
        None
    }
}

/// Where the page carries its load token: the sink fills in this meta element's content.
pub const PAGE_LOAD_SLOT: &str = r#"<meta name="unobserved-load" content="">"#;

/// A GET the browser made to show a document (Fetch Metadata; a browser that sends
/// none is taken at its GET): a `fetch()` or an iframe gets the page without a token.
pub(crate) fn is_navigation(headers: &HeaderMap) -> bool {
    let is = |name: &str, want: &str| {
        headers
            .get(name)
            .is_none_or(|v| v.as_bytes() == want.as_bytes())
    };
    is("sec-fetch-dest", "document") && is("sec-fetch-mode", "navigate")
}

/// The page's bytes with `load` in its slot.
pub(crate) fn with_load(page: &[u8], load: &str) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(page).ok()?;
    text.contains(PAGE_LOAD_SLOT).then(|| {
        let filled = format!(r#"<meta name="unobserved-load" content="{load}">"#);
        text.replacen(PAGE_LOAD_SLOT, &filled, 1).into_bytes()
    })
}

/// Answers a request for the API (the token is already checked).
pub(crate) async fn call(req: Request<Incoming>, shared: &Shared, what: &str) -> Reply {
    let Some(api) = shared.api.clone() else {
        return json_error(
            404,
            "this sink serves no page of its own (not `unobserved serve`)",
        );
    };
    let peer = req.extensions().get::<Peer>().map(|p| p.0);
    let connection = req.extensions().get::<Connection>().copied();
    let (parts, body) = req.into_parts();
    let limited = http_body_util::Limited::new(body, MAX_API_BODY);
    let body = match tokio::time::timeout(shared.idle_timeout, limited.collect()).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            return json_error(413, &format!("a message is at most {MAX_API_BODY} bytes"))
        }
        Ok(Err(e)) => return json_error(400, &format!("the body could not be read: {e}")),
        Err(_) => return json_error(408, "the body was too slow"),
    };
    let request = ApiRequest {
        method: parts.method,
        what: what.to_owned(),
        peer,
        connection,
        headers: parts.headers,
        body,
    };
    let api: Arc<dyn Api> = api;
    match tokio::task::spawn_blocking(move || api.handle(request)).await {
        Ok(reply) => json(reply.status, &reply.body),
        Err(e) => json_error(500, &format!("the host failed to answer: {e}")),
    }
}
