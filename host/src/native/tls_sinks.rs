//! The TLS listeners a run asks for (`transports` h1-tls, h2): one sink per TLS
//! transport, started when the run starts. A run of `unobserved run` brings its own
//! certificate and the ports its throwaway profile trusts it at (the job's `tls`); in
//! an everyday browser they come from the local CA of `unobserved install
//! --local-https`, on any free port. The page is served by the h1 sink, so each TLS
//! sink lets that origin call it.

use crate::domain::arm::Transport;
use crate::domain::ceiling::TransportCeiling;
use crate::platform::local_tls::LocalCert;
use crate::protocol::job::JobTls;
use crate::sink::{Sink, SinkConfig};
use std::collections::BTreeMap;

#[derive(Default)]
pub struct TlsSinks {
    running: Vec<(Transport, Sink)>,
    /// The certificate chain the sinks serve: what a client measuring them trusts.
    chain_pem: String,
}

/// Where a TLS listener's certificate and port come from.
pub enum Source<'a> {
    Job(&'a JobTls),
    /// A leaf for this session, from the installed local CA.
    LocalCa(LocalCert),
}

impl TlsSinks {
    /// Starts the listener for each TLS transport not yet running. The error says
    /// which transport and why.
    pub fn ensure(
        &mut self,
        wanted: &[Transport],
        source: &Source,
        page_origin: &str,
        base: impl Fn() -> SinkConfig,
    ) -> Result<(), String> {
        for &transport in wanted.iter().filter(|t| t.is_tls()) {
            if self.running.iter().any(|(t, _)| *t == transport) {
                continue;
            }
            let (cert, port) = match source {
                Source::Job(job) => {
                    let port = job
                        .listeners
                        .iter()
                        .find(|l| l.transport == transport)
                        .map(|l| l.port)
                        .ok_or_else(|| {
                            format!("this run's profile trusts no {transport} listener")
                        })?;
                    (&job.cert, port)
                }
                Source::LocalCa(cert) => (cert, 0),
            };
            let mut config = base();
            config.listen = std::net::SocketAddr::from(([127, 0, 0, 1], port));
            config.tls = Some((
                cert.cert_pem.clone().into_bytes(),
                cert.key_pem.clone().into_bytes(),
            ));
            config.http2 = transport == Transport::H2;
            config.cors_origins.push(page_origin.to_owned());
            let sink = Sink::start(config).map_err(|e| {
                format!("the {transport} sink could not listen on 127.0.0.1:{port}: {e:#}")
            })?;
            self.running.push((transport, sink));
            self.chain_pem = cert.cert_pem.clone();
        }
        Ok(())
    }

    /// The own receive ceiling at this body size of each TLS sink these transports
    /// use; a sink that cannot be measured is left out, with a log line.
    pub fn ceilings(&self, size: u64, of: &[Transport]) -> BTreeMap<Transport, TransportCeiling> {
        self.running
            .iter()
            .filter(|(t, _)| of.contains(t))
            .filter_map(|(t, sink)| {
                crate::sink::ceiling_tls::measure(&sink.upload_url(), &self.chain_pem, *t, size)
                    .map(|c| (*t, c))
                    .map_err(|e| log::warn!("could not measure the {t} sink's ceiling: {e}"))
                    .ok()
            })
            .collect()
    }

    /// Upload URLs by transport, TLS ones only.
    pub fn upload_urls(&self) -> BTreeMap<Transport, String> {
        self.running
            .iter()
            .map(|(t, sink)| (*t, sink.upload_url()))
            .collect()
    }
}
