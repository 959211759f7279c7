//! `unobserved sink`: the hashing sink alone, for measuring a real link (e.g. a server
//! on the same switch). The first line of stdout is the upload URL to paste into the
//! extension's options; request logs follow on stderr. Results are still stored by the
//! host on the machine where the browser runs.

use super::args::SinkArgs;
use crate::sink::{token, Sink, SinkConfig};
use anyhow::{Context, Result};
use std::io::Write;
use std::time::Duration;

pub fn execute(a: SinkArgs) -> Result<i32> {
    let token = match a.token {
        Some(t) if t.len() < 16 || !t.bytes().all(|b| b.is_ascii_alphanumeric()) => {
            return Err(super::usage::usage("--token must be at least 16 letters or digits (it is the only thing guarding uploads)"))
        }
        Some(t) => t,
        None => token::generate(),
    };
    let tls = match (&a.tls_cert, &a.tls_key) {
        (Some(c), Some(k)) => Some((
            std::fs::read(c).with_context(|| format!("cannot read {}", c.display()))?,
            std::fs::read(k).with_context(|| format!("cannot read {}", k.display()))?,
        )),
        _ => None,
    };
    if !a.listen.ip().is_loopback() {
        log::warn!(
            "listening on {}: reachable from other machines; the token is the only guard",
            a.listen
        );
    }
    let sink = Sink::start(SinkConfig {
        listen: a.listen,
        token,
        max_body: a.max_body,
        idle_timeout: Duration::from_secs(a.idle_timeout),
        tls,
        public_hosts: a.public_host.iter().cloned().collect(),
        // A remote sink is called from the extension's own page, which in Firefox has
        // an origin no one can list.
        firefox_pages: crate::sink::cors::FirefoxPages::TokenRoutes,
        // The host storing the samples is another process: it claims records here.
        ledger_route: true,
        hash_queue_bytes: a
            .hash_queue
            .unwrap_or_else(crate::sink::hash_queue::default_capacity),
        ..SinkConfig::default()
    })?;
    let hosts = public_hosts(a.public_host.as_deref(), sink.addr());
    let url = |host: &str| {
        sink.upload_url().replacen(
            &sink.addr().to_string(),
            &format!("{host}:{}", sink.addr().port()),
            1,
        )
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", url(&hosts[0]))?;
    out.flush()?;
    drop(out);
    for other in &hosts[1..] {
        eprintln!("also reachable as {}", url(other));
    }
    eprintln!("sink ready: paste the URL above into Unobserved's options (Sink upload URL). Ctrl-C stops it.");
    loop {
        std::thread::park();
    }
}

/// Names a client can reach the sink by: --public-host, the listen address, or for an
/// unspecified one (0.0.0.0, [::]) every non-loopback address this machine has.
pub(super) fn public_hosts(public_host: Option<&str>, addr: std::net::SocketAddr) -> Vec<String> {
    if let Some(h) = public_host {
        return vec![h.to_owned()];
    }
    let shown = |ip: std::net::IpAddr| match ip {
        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        v4 => v4.to_string(),
    };
    if !addr.ip().is_unspecified() {
        return vec![shown(addr.ip())];
    }
    let mut found: Vec<String> = crate::net::interface_addresses()
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
