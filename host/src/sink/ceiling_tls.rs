//! The receive ceiling of a TLS sink (h1-tls, h2), measured as `ceiling.rs` measures
//! the plain one: PUTs of the run's body size on one kept-alive connection, first byte
//! to response headers, five rounds after a warm-up. TLS costs the sink decryption, and
//! HTTP/2 its framing and flow control; on a CPU without AES instructions that could
//! bring the sink down to a browser's speed, and an arm there must be flagged, not
//! believed. The client is `probe.rs`'s, as for the plain ceiling: only the connection
//! (rustls here, plain TCP there) differs.

use super::probe::{runtime, Connection};
use crate::domain::arm::Transport;
use crate::domain::ceiling::TransportCeiling;
use std::sync::Arc;
use tokio_rustls::rustls;

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
    runtime()?.block_on(measure_async(upload_url, chain_pem, transport, size))
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
    let tcp = tokio::net::TcpStream::connect(&authority).await?;
    tcp.set_nodelay(true)?;
    let name =
        rustls::pki_types::ServerName::try_from("localhost").map_err(std::io::Error::other)?;
    let tls = tokio_rustls::TlsConnector::from(Arc::new(client_config(chain_pem, transport)?))
        .connect(name, tcp)
        .await?;
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    Connection::handshake(tls, authority, transport == Transport::H2)
        .await?
        .ceiling(path, size)
        .await
}
