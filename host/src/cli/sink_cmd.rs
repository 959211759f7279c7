//! `unobserved sink`: the hashing sink alone, for measuring a real link (e.g. a server
//! on the same switch). The first line of stdout is the upload URL to paste into the
//! extension's options; request logs follow on stderr. Results are still stored by the
//! host on the machine where the browser runs.

use super::args::SinkArgs;
use crate::sink::{token, Sink, SinkConfig};
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::time::Duration;

pub fn execute(a: SinkArgs) -> Result<i32> {
    let token = match a.token {
        Some(t) if t.len() < 16 || !t.bytes().all(|b| b.is_ascii_alphanumeric()) => {
            bail!("--token must be at least 16 letters or digits (it is the only thing guarding uploads)")
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
        hash_queue_bytes: a
            .hash_queue
            .unwrap_or_else(crate::sink::hash_queue::default_capacity),
        ..SinkConfig::default()
    })?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", sink.upload_url())?;
    out.flush()?;
    drop(out);
    eprintln!("sink ready: paste the URL above into Unobserved's options (Sink upload URL). Ctrl-C stops it.");
    loop {
        std::thread::park();
    }
}
