//! Accepting connections: a tokio runtime on its own thread, one task per connection,
//! TLS handshakes inside that task (never in the accept loop), and a connection cap.

use super::connections::{Busy, Ledger, Refused, Slot};
use super::refusals::Refusal;
use super::{handler, Shared};
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::{combinators::BoxBody, BodyExt};
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::sync::oneshot;
use tokio_rustls::TlsAcceptor;

const ALPN_H2: &[u8] = b"h2";

/// HTTP/2 limits. Streams on one connection, like connections, are capped: each open
/// upload holds a hash-queue share. Header lists are bounded as HTTP/1.1's are.
pub const H2_MAX_CONCURRENT_STREAMS: u32 = 16;
pub const H2_MAX_HEADER_LIST_BYTES: u32 = 16 * 1024;
/// An HTTP/1.1 request head (request line and headers), in bytes; hyper answers a
/// longer one with 431 and closes. Without it a head may fill hyper's whole read
/// buffer (about 400 KiB), and a few hundred such connections cost 100 MB. Twice
/// HTTP/2's figure: raw header lines carry their CRLFs and the request line.
pub const H1_MAX_HEAD_BYTES: usize = 32 * 1024;

pub struct Running {
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    /// Closes the listener at once; open connections get up to 300 ms.
    pub fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub fn tls_acceptor(cert_pem: &[u8], key_pem: &[u8], http2: bool) -> anyhow::Result<TlsAcceptor> {
    let certs = rustls_pemfile::certs(&mut &cert_pem[..]).collect::<Result<Vec<_>, _>>()?;
    let key = rustls_pemfile::private_key(&mut &key_pem[..])?
        .ok_or_else(|| anyhow::anyhow!("no private key in the key file"))?;
    let mut config = tokio_rustls::rustls::ServerConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()?
    .with_no_client_auth()
    .with_single_cert(certs, key)?;
    // HTTP/2 when the client offers it (browsers do, and Chromium sends stream bodies
    // only over it), HTTP/1.1 otherwise; only HTTP/1.1 for the h1-tls transport.
    config.alpn_protocols = if http2 {
        vec![ALPN_H2.to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    Ok(TlsAcceptor::from(Arc::new(config)))
}

pub fn spawn(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    tls: Option<TlsAcceptor>,
    max_connections: usize,
) -> anyhow::Result<Running> {
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("sink")
        .enable_all()
        .build()?;
    let (stop_tx, stop_rx) = oneshot::channel();
    let thread = std::thread::Builder::new()
        .name("sink-runtime".into())
        .spawn(move || {
            runtime.block_on(accept_loop(listener, shared, tls, max_connections, stop_rx));
            runtime.shutdown_timeout(Duration::from_millis(300));
        })?;
    Ok(Running {
        stop: Some(stop_tx),
        thread: Some(thread),
    })
}

async fn accept_loop(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    tls: Option<TlsAcceptor>,
    max_connections: usize,
    mut stop: oneshot::Receiver<()>,
) {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => return log::error!("sink cannot use its listener: {e}"),
    };
    let ledger = Ledger::new(max_connections);
    loop {
        tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => {
                let Ok((stream, peer)) = accepted else { continue };
                match ledger.admit(peer.ip()) {
                    Ok(mut slot) => {
                        let (shared, tls) = (shared.clone(), tls.clone());
                        let evicted = slot.evicted.take().expect("a fresh slot");
                        tokio::spawn(async move {
                            let slot = Arc::new(slot);
                            tokio::select! {
                                _ = serve(stream, shared, tls, slot.clone(), peer) => {}
                                // Only a real eviction: a dropped sender (the connection sent a
                                // request) disables this branch.
                                Ok(()) = evicted => log::debug!("closed an idle connection from {peer} to make room"),
                            }
                        });
                    }
                    Err(why) => {
                        shared.refusals.record(match why {
                            Refused::Full => Refusal::TooManyConnections,
                            Refused::PeerFull => Refusal::TooManyFromPeer,
                        });
                        tokio::spawn(refuse(stream));
                    }
                }
            }
        }
    }
}

async fn refuse(mut stream: tokio::net::TcpStream) {
    let body = r#"{"error":"too many connections"}"#;
    let reply = format!("HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
    let _ = stream.write_all(reply.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// The page API limits each peer's rate (`unobserved serve`), and finds the browser
/// behind a page on this machine by the connection's two ends.
fn tag<B>(
    req: &mut hyper::Request<B>,
    peer: std::net::SocketAddr,
    local: Option<std::net::SocketAddr>,
) {
    req.extensions_mut().insert(super::api::Peer(peer.ip()));
    if let Some(local) = local {
        req.extensions_mut()
            .insert(super::api::Connection { local, peer });
    }
}

async fn serve(
    stream: tokio::net::TcpStream,
    shared: Arc<Shared>,
    tls: Option<TlsAcceptor>,
    slot: Arc<Slot>,
    peer: std::net::SocketAddr,
) {
    let _ = stream.set_nodelay(true);
    let idle = shared.idle_timeout;
    let local = stream.local_addr().ok();
    let service = service_fn(move |mut req: hyper::Request<hyper::body::Incoming>| {
        tag(&mut req, peer, local);
        // A request that carries the token: this connection is in use, not a candidate
        // for eviction, until the request and its reply are done; kept alive after
        // that, it is idle again. (Without the token, a peer could make idle
        // connections safe by sending one refused request on each.)
        let busy = handler::carries_token(&req, &shared).then(|| slot.busy());
        let shared = shared.clone();
        async move {
            let reply = handler::handle(req, shared).await;
            Ok::<_, std::convert::Infallible>(match busy {
                Some(busy) => reply.map(|body| Held { body, _busy: busy }.boxed()),
                None => reply,
            })
        }
    });
    let builder = h1_builder(idle);
    let result = match tls {
        None => {
            builder
                .serve_connection(TokioIo::new(stream), service)
                .await
        }
        Some(acceptor) => match tokio::time::timeout(idle, acceptor.accept(stream)).await {
            Ok(Ok(tls_stream)) if tls_stream.get_ref().1.alpn_protocol() == Some(ALPN_H2) => {
                http2::Builder::new(TokioExecutor::new())
                    .timer(TokioTimer::new())
                    .max_concurrent_streams(H2_MAX_CONCURRENT_STREAMS)
                    .max_header_list_size(H2_MAX_HEADER_LIST_BYTES)
                    // An idle HTTP/2 connection is pinged, and closed if it stops answering.
                    .keep_alive_interval(Some(idle))
                    .keep_alive_timeout(idle)
                    .serve_connection(TokioIo::new(tls_stream), service)
                    .await
            }
            Ok(Ok(tls_stream)) => {
                builder
                    .serve_connection(TokioIo::new(tls_stream), service)
                    .await
            }
            Ok(Err(e)) => return log::debug!("TLS handshake failed: {e}"),
            Err(_) => return log::debug!("TLS handshake timed out"),
        },
    };
    if let Err(e) = result {
        log::debug!("connection ended: {e}");
    }
}

/// HTTP/1.1 with kept-alive connections, a head read within `idle` and a bounded head.
fn h1_builder(idle: Duration) -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(idle)
        // Not max_buf_size: that also bounds the body reads, and so the sink's ceiling.
        .max_header_size(H1_MAX_HEAD_BYTES)
        .keep_alive(true);
    builder
}

/// A reply's body that keeps its connection busy until the body is sent (or dropped).
struct Held {
    body: BoxBody<Bytes, std::convert::Infallible>,
    _busy: Busy,
}

impl Body for Held {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
