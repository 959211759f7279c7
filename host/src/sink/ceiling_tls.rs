//! The receive ceiling of a TLS sink (h1-tls, h2), measured as `ceiling.rs` measures
//! the plain one: PUTs of the run's body size on one kept-alive connection, first byte
//! to response headers, five rounds after a warm-up. TLS costs the sink decryption, and
//! HTTP/2 its framing and flow control; on a CPU without AES instructions that could
//! bring the sink down to a browser's speed, and an arm there must be flagged, not
//! believed. One client library (hyper) for both protocols.

use super::ceiling::probe_bytes;
use crate::arm::Transport;
use crate::model::TransportCeiling;
use bytes::Bytes;
use http_body::{Body, Frame};
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio_rustls::rustls;

const MAX_PROBE: u64 = 256 << 20;
const ROUNDS: usize = 5;

/// `total` bytes as a body: one chunk, repeated (never the whole body in memory).
struct Repeated {
    chunk: Bytes,
    left: u64,
}

impl Body for Repeated {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if self.left == 0 {
            return Poll::Ready(None);
        }
        let n = self.left.min(self.chunk.len() as u64);
        self.left -= n;
        Poll::Ready(Some(Ok(Frame::data(self.chunk.slice(..n as usize)))))
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.left)
    }
}

/// A client that trusts exactly the certificates in `chain_pem` (the run's own, or the
/// local CA's chain) and offers only the transport's protocol.
fn client_config(chain_pem: &str, transport: Transport) -> std::io::Result<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_pemfile::certs(&mut chain_pem.as_bytes()) {
        roots.add(cert?).map_err(std::io::Error::other)?;
    }
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(std::io::Error::other)?
    .with_root_certificates(roots)
    .with_no_client_auth();
    config.alpn_protocols = vec![match transport {
        Transport::H2 => b"h2".to_vec(),
        _ => b"http/1.1".to_vec(),
    }];
    Ok(config)
}

/// The receive ceiling: median and range of the rate, in Mbps.
pub fn measure(
    upload_url: &str,
    chain_pem: &str,
    transport: Transport,
    size: u64,
) -> std::io::Result<TransportCeiling> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(measure_async(upload_url, chain_pem, transport, size))
}

async fn measure_async(
    upload_url: &str,
    chain_pem: &str,
    transport: Transport,
    size: u64,
) -> std::io::Result<TransportCeiling> {
    let uri: hyper::Uri = upload_url.parse().map_err(std::io::Error::other)?;
    let authority = uri
        .authority()
        .ok_or_else(|| std::io::Error::other("no host in the upload URL"))?
        .to_string();
    let size = size.clamp(1, MAX_PROBE);
    let chunk = Bytes::from(probe_bytes(size.min(4 << 20) as usize));
    let tcp = tokio::net::TcpStream::connect(&authority).await?;
    tcp.set_nodelay(true)?;
    let name =
        rustls::pki_types::ServerName::try_from("localhost").map_err(std::io::Error::other)?;
    let tls = tokio_rustls::TlsConnector::from(Arc::new(client_config(chain_pem, transport)?))
        .connect(name, tcp)
        .await?;
    let io = TokioIo::new(tls);
    // HTTP/2 names the sink in :authority (from the full URI); HTTP/1.1 in Host.
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    let request = |n: u64| {
        let builder = if transport == Transport::H2 {
            hyper::Request::put(uri.clone())
        } else {
            hyper::Request::put(path.as_str()).header("host", &authority)
        };
        builder.header("content-length", n).body(Repeated {
            chunk: chunk.clone(),
            left: n,
        })
    };
    let mut times: Vec<Duration> = Vec::new();
    // The same loop for both protocols; only the connection differs.
    macro_rules! rounds {
        ($send:expr) => {
            for round in 0..=ROUNDS {
                let start = Instant::now();
                let reply = $send
                    .send_request(request(size).map_err(std::io::Error::other)?)
                    .await
                    .map_err(std::io::Error::other)?;
                let took = start.elapsed();
                let status = reply.status();
                http_body_util::BodyExt::collect(reply.into_body())
                    .await
                    .map_err(std::io::Error::other)?;
                if status != 200 {
                    return Err(std::io::Error::other(format!(
                        "sink answered HTTP {status}"
                    )));
                }
                if round > 0 {
                    times.push(took);
                }
            }
        };
    }
    if transport == Transport::H2 {
        let (mut send, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
            .await
            .map_err(std::io::Error::other)?;
        tokio::spawn(conn);
        rounds!(send);
    } else {
        let (mut send, conn) = hyper::client::conn::http1::handshake(io)
            .await
            .map_err(std::io::Error::other)?;
        tokio::spawn(conn);
        rounds!(send);
    }
    Ok(super::ceiling::receive_rates(size, &times))
}
