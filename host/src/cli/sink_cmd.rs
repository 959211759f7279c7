//! `unobserved sink`: the hashing sink alone, for measuring a real link (e.g. a server
//! on the same switch). The first line of stdout is the upload URL to paste into the
//! extension's options (with `--tls`, pinning the sink's certificate); request logs
//! follow on stderr. Results are still stored by the host on the machine where the
//! browser runs.

use super::args::SinkArgs;
use crate::domain::arm::Transport;
use crate::domain::flags::FlagError;
use crate::platform::remote_tls::{self, SinkCert};
use crate::sink::{token, Sink, SinkConfig};
use anyhow::Result;
use std::io::Write;
use std::time::Duration;

pub fn execute(a: SinkArgs) -> Result<i32> {
    let token = match a.token.clone() {
        Some(t) if t.len() < 16 || !t.bytes().all(|b| b.is_ascii_alphanumeric()) => {
            return Err(super::usage::flag(FlagError::SinkToken))
        }
        Some(t) => t,
        None => token::generate(),
    };
    let transport = transport_of(&a)?;
    let hosts = public_hosts(a.public_host.as_ref(), a.listen);
    let cert = certificate(&a, transport, &hosts)?;
    if !a.listen.ip().is_loopback() {
        log::warn!(
            "listening on {}: reachable from other machines; the token is the only guard",
            a.listen
        );
    }
    let sink = Sink::start(config(&a, token, cert.as_ref(), transport))?;
    let pin = cert
        .as_ref()
        .map(|c| format!("#{}", crate::domain::sink_url::fragment(c.pin, transport)));
    let url = |host: &str| {
        sink.upload_url().replacen(
            &sink.addr().to_string(),
            &format!("{host}:{}", sink.addr().port()),
            1,
        ) + pin.as_deref().unwrap_or_default()
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", url(&hosts[0]))?;
    out.flush()?;
    drop(out);
    for other in &hosts[1..] {
        eprintln!("also reachable as {}", url(other));
    }
    if let Some(c) = &cert {
        say_how_to_trust(c);
    }
    eprintln!("sink ready: paste the URL above into Unobserved's options (Sink upload URL). Ctrl-C stops it.");
    loop {
        std::thread::park();
    }
}

/// What the sink offers: --transport, else h2 with --tls or --tls-cert, else h1. A TLS
/// flag beside `--transport h1` contradicts it.
fn transport_of(a: &SinkArgs) -> Result<Transport> {
    let tls = a.tls || a.tls_cert.is_some();
    match (a.transport, tls) {
        (Some(Transport::H1), true) => Err(super::usage::flag(FlagError::SinkH1WithTls)),
        (Some(t), _) => Ok(t),
        (None, true) => Ok(Transport::H2),
        (None, false) => Ok(Transport::H1),
    }
}

/// The sink's configuration for these arguments.
fn config(
    a: &SinkArgs,
    token: String,
    cert: Option<&SinkCert>,
    transport: Transport,
) -> SinkConfig {
    SinkConfig {
        listen: a.listen,
        token,
        max_body: a.max_body,
        idle_timeout: Duration::from_secs(a.idle_timeout),
        tls: cert.map(|c| {
            (
                c.cert_pem.clone().into_bytes(),
                c.key_pem.clone().into_bytes(),
            )
        }),
        // Over TLS, ALPN offers h2 and http/1.1, or http/1.1 alone for h1-tls.
        http2: transport == Transport::H2,
        public_hosts: a
            .public_host
            .iter()
            .map(|h| h.as_str().to_owned())
            .collect(),
        // A remote sink is called from the extension's own page, which in Firefox has
        // an origin no one can list.
        firefox_pages: crate::sink::cors::FirefoxPages::TokenRoutes,
        // The host storing the samples is another process: it claims records here.
        ledger_route: true,
        hash_queue_bytes: a
            .hash_queue
            .unwrap_or_else(crate::sink::hash_queue::default_capacity),
        ..SinkConfig::default()
    }
}

/// The sink's certificate: --tls-cert's, or over TLS (--tls, --transport h2/h1-tls) its
/// own, kept in the state dir for the names it is reached by. None for h1 (plain HTTP).
fn certificate(a: &SinkArgs, transport: Transport, hosts: &[String]) -> Result<Option<SinkCert>> {
    if let (Some(cert), Some(key)) = (&a.tls_cert, &a.tls_key) {
        return Ok(Some(remote_tls::given(cert, key)?));
    }
    if !transport.is_tls() {
        return Ok(None);
    }
    let names: Vec<String> = hosts
        .iter()
        .map(|h| h.trim_start_matches('[').trim_end_matches(']').to_owned())
        .collect();
    let state_dir = crate::platform::state::state_dir()?;
    let (cert, origin) = remote_tls::kept_for(&state_dir, &names)?;
    let path = cert.path.as_deref().unwrap_or(std::path::Path::new("?"));
    match origin {
        remote_tls::Origin::Made { replaced: true } => log::warn!(
            "made a new certificate for {} ({}): the kept one did not name them all or was about to expire, so its pin changed; browsers that trusted the old one must trust this one",
            names.join(", "),
            path.display()
        ),
        remote_tls::Origin::Made { replaced: false } => {
            log::info!("made this sink's certificate: {}", path.display())
        }
        _ => {}
    }
    Ok(Some(cert))
}

/// Where the certificate is and what a browser must trust, on stderr.
fn say_how_to_trust(cert: &SinkCert) {
    if let Some(path) = &cert.path {
        eprintln!("certificate: {}", path.display());
    }
    eprintln!("its SHA-256 fingerprint: {}", cert.pin.colons());
    eprintln!("the URL pins it: `unobserved run --sink-url URL` trusts it in its throwaway profile; your own browser must trust it once (docs/real-links.md)");
}

/// Names a client can reach the sink by: --public-host, the listen address, or for an
/// unspecified one (0.0.0.0, [::]) every non-loopback address this machine has.
pub(super) fn public_hosts(
    public_host: Option<&crate::domain::host_name::PublicHost>,
    addr: std::net::SocketAddr,
) -> Vec<String> {
    if let Some(h) = public_host {
        return vec![h.as_str().to_owned()];
    }
    let shown = |ip: std::net::IpAddr| match ip {
        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        v4 => v4.to_string(),
    };
    if !addr.ip().is_unspecified() {
        return vec![shown(addr.ip())];
    }
    let mut found: Vec<String> = crate::platform::net::interface_addresses()
        .into_iter()
        .filter(|ip| !ip.is_loopback() && ip.is_ipv4() == addr.is_ipv4())
        .map(shown)
        .collect();
    if found.is_empty() {
        found.push(if addr.is_ipv4() {
            "127.0.0.1".into()
        } else {
            "[::1]".into()
        });
    }
    found
}
