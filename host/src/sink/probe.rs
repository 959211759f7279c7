//! The client the ceiling probes upload with (and the CLI's `--sink-url` check, and the
//! remote ledger's claims): hyper's HTTP/1.1 or HTTP/2 client on one kept-alive
//! connection. `ceiling.rs` hands it a plain TCP stream, `ceiling_tls.rs` a rustls one
//! trusting the run's certificate, `connect_sink` one pinned to a remote sink's
//! certificate (`pinned.rs`); the connection is all they differ in.

use super::pinned::{Presented, ReachError};
use crate::domain::arm::Transport;
use crate::domain::sink_url::SinkUrl;
use bytes::Bytes;
use futures_util::stream;
use http_body::Frame;
use http_body_util::{combinators::BoxBody, BodyExt, StreamBody};
use hyper::client::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite};

/// Largest body used for a ceiling; bigger runs are measured at this size.
const MAX_PROBE: u64 = 256 << 20;
/// Timed uploads after one untimed warm-up.
pub const ROUNDS: usize = 5;
/// How long a reply may take once the whole body is sent (and each read of its body).
const READ_TIMEOUT: Duration = Duration::from_secs(120);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

type ProbeBody = BoxBody<Bytes, Infallible>;

/// One response: how long its headers took, its status code and its body.
pub struct Reply {
    pub to_headers: Duration,
    pub status: u16,
    pub body: Vec<u8>,
}

enum Sender {
    H1(http1::SendRequest<ProbeBody>),
    H2(http2::SendRequest<ProbeBody>),
}

/// One kept-alive connection to a sink, over any stream.
pub(crate) struct Connection {
    sender: Sender,
    /// The sink as a browser names it: address and port (Host, or :authority on h2).
    authority: String,
}

impl Connection {
    /// The HTTP/1.1 (or, with `h2`, HTTP/2) handshake on `io`; the connection is driven
    /// by a task on the current runtime.
    pub(crate) async fn handshake<IO>(io: IO, authority: String, h2: bool) -> std::io::Result<Self>
    where
        IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let io = TokioIo::new(io);
        let sender = if h2 {
            let (send, conn) = http2::handshake(TokioExecutor::new(), io)
                .await
                .map_err(std::io::Error::other)?;
            tokio::spawn(conn);
            Sender::H2(send)
        } else {
            let (send, conn) = http1::handshake(io).await.map_err(std::io::Error::other)?;
            tokio::spawn(conn);
            Sender::H1(send)
        };
        Ok(Connection { sender, authority })
    }

    /// PUTs `total` bytes (`chunk` repeated) to `path`, timed from the first byte sent
    /// to the response headers.
    pub(crate) async fn put(
        &mut self,
        path: &str,
        total: u64,
        chunk: &Bytes,
    ) -> std::io::Result<Reply> {
        let (sent_tx, sent) = tokio::sync::oneshot::channel::<()>();
        let body = repeated(chunk.clone(), total, sent_tx);
        // HTTP/2 names the sink in :authority (from the full URI); HTTP/1.1 in Host.
        let request = match self.sender {
            Sender::H2(_) => hyper::Request::put(format!("https://{}{path}", self.authority)),
            Sender::H1(_) => hyper::Request::put(path).header("host", &self.authority),
        }
        .header("content-length", total)
        .body(body)
        .map_err(std::io::Error::other)?;
        let start = Instant::now();
        let headers = async {
            match &mut self.sender {
                Sender::H1(s) => s.send_request(request).await,
                Sender::H2(s) => s.send_request(request).await,
            }
        };
        // The reply's deadline runs from the body's end (hyper drops it once sent).
        let deadline = async {
            let _ = sent.await;
            tokio::time::sleep(READ_TIMEOUT).await;
        };
        let reply = tokio::select! {
            reply = headers => reply.map_err(std::io::Error::other)?,
            () = deadline => return Err(timed_out()),
        };
        let to_headers = start.elapsed();
        let status = reply.status().as_u16();
        // A sink's reply is a peer's: read no more of it than any reply of ours needs.
        let limited = http_body_util::Limited::new(
            reply.into_body(),
            crate::domain::limits::INPUT.peer_reply_bytes,
        );
        let body = tokio::time::timeout(READ_TIMEOUT, limited.collect())
            .await
            .map_err(|_| timed_out())?
            .map_err(std::io::Error::other)?
            .to_bytes()
            .to_vec();
        Ok(Reply {
            to_headers,
            status,
            body,
        })
    }

    /// The receive ceiling at `size` bytes (capped at 256 MiB): one untimed warm-up,
    /// then five timed uploads to `path`.
    pub(crate) async fn ceiling(
        &mut self,
        path: &str,
        size: u64,
    ) -> std::io::Result<crate::domain::ceiling::TransportCeiling> {
        let size = size.clamp(1, MAX_PROBE);
        let chunk = Bytes::from(super::ceiling::probe_bytes(size.min(4 << 20) as usize));
        let mut times = Vec::with_capacity(ROUNDS);
        for round in 0..=ROUNDS {
            let reply = self.put(path, size, &chunk).await?;
            if reply.status != 200 {
                return Err(std::io::Error::other(format!(
                    "sink answered HTTP {}",
                    reply.status
                )));
            }
            if round > 0 {
                times.push(reply.to_headers);
            }
        }
        Ok(super::ceiling::receive_rates(size, &times))
    }
}

/// `total` bytes as a body: `chunk` repeated, made as it is sent (never the whole body
/// in memory). `sent` goes with the body, which hyper drops once all of it is written.
fn repeated(chunk: Bytes, total: u64, sent: tokio::sync::oneshot::Sender<()>) -> ProbeBody {
    let frames = stream::unfold((total, sent), move |(left, sent)| {
        let n = left.min(chunk.len() as u64);
        let frame = (n > 0).then(|| Ok(Frame::data(chunk.slice(..n as usize))));
        std::future::ready(frame.map(|f| (f, (left - n, sent))))
    });
    StreamBody::new(frames).boxed()
}

fn timed_out() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::TimedOut, "the sink did not answer")
}

/// A TCP connection to `addr`, or an error after `CONNECT_TIMEOUT`.
async fn tcp_to(addr: SocketAddr) -> std::io::Result<tokio::net::TcpStream> {
    let tcp = tokio::time::timeout(CONNECT_TIMEOUT, tokio::net::TcpStream::connect(addr))
        .await
        .map_err(|_| timed_out())??;
    tcp.set_nodelay(true)?;
    Ok(tcp)
}

/// A single-threaded runtime for the blocking callers.
pub(crate) fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// A kept-alive plain HTTP/1.1 connection that PUTs bodies and reads the replies, for
/// callers that block (the CLI, the ceiling probe, tests and benches).
pub struct Client {
    rt: tokio::runtime::Runtime,
    connection: Connection,
}

impl Client {
    pub fn connect(addr: SocketAddr) -> std::io::Result<Client> {
        Client::connect_as(addr, addr.to_string())
    }

    /// Connects to `addr`, naming the sink `authority` (its Host header), as a sink
    /// reached by name wants.
    pub fn connect_as(addr: SocketAddr, authority: String) -> std::io::Result<Client> {
        let rt = runtime()?;
        let connection = rt.block_on(async {
            Connection::handshake(tcp_to(addr).await?, authority, false).await
        })?;
        Ok(Client { rt, connection })
    }

    /// Connects to the sink at `url` as a browser uploads to it: in the clear for
    /// http://, and for https:// over TLS that accepts only the pinned certificate,
    /// HTTP/2 when the sink offers it. Also what an https:// sink presented. A sink that
    /// negotiates another protocol than its URL says (h2, or h1-tls) is refused.
    pub fn connect_sink(url: &SinkUrl) -> Result<(Client, Option<Presented>), ReachError> {
        let addr = crate::platform::net::resolve(url)?
            .into_iter()
            .next()
            .ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("{} names no address", url.authority()),
                )
            })?;
        let Some(pin) = url.pin() else {
            return Ok((Client::connect_as(addr, url.authority().to_owned())?, None));
        };
        let rt = runtime()?;
        let (connection, presented) = rt.block_on(async {
            let tcp = tcp_to(addr).await?;
            let handshake = super::pinned::connect(tcp, url.host(), pin, &[b"h2", b"http/1.1"]);
            let (tls, presented) = tokio::time::timeout(CONNECT_TIMEOUT, handshake)
                .await
                .map_err(|_| timed_out())??;
            let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
            let offered = if h2 { Transport::H2 } else { Transport::H1Tls };
            if offered != url.transport() {
                let said = url.transport();
                return Err(ReachError::OtherTransport { said, offered });
            }
            let connection = Connection::handshake(tls, url.authority().to_owned(), h2).await?;
            Ok::<_, ReachError>((connection, presented))
        })?;
        Ok((Client { rt, connection }, Some(presented)))
    }

    /// PUTs `total` bytes (`data` repeated) to `path`.
    pub fn put(&mut self, path: &str, total: u64, data: &[u8]) -> std::io::Result<Reply> {
        let chunk = Bytes::copy_from_slice(data);
        self.rt.block_on(self.connection.put(path, total, &chunk))
    }

    /// The receive ceiling at `size` bytes on this connection.
    pub(crate) fn ceiling(
        &mut self,
        path: &str,
        size: u64,
    ) -> std::io::Result<crate::domain::ceiling::TransportCeiling> {
        self.rt.block_on(self.connection.ceiling(path, size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repeated_body_is_exactly_total_bytes_and_signals_its_end() {
        runtime().unwrap().block_on(async {
            let (tx, mut sent) = tokio::sync::oneshot::channel();
            let mut body = repeated(Bytes::from_static(b"abcd"), 10, tx);
            let mut frames = Vec::new();
            while let Some(frame) = body.frame().await {
                assert!(sent.try_recv().is_err(), "the end is signalled before it");
                frames.push(frame.unwrap().into_data().unwrap());
            }
            assert_eq!(frames, [&b"abcd"[..], b"abcd", b"ab"]);
            drop(body);
            assert!(sent.await.is_err(), "the sender went with the body");
        });
    }
}
