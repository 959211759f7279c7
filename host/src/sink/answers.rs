//! Whether a sink answers at all: the host uploads 16 bytes to it with its own client, as
//! before a run. Any answer within the limit counts (a refusal too): the sink is there
//! and quick. None says the sink, or the link to it, is gone or stalled. Asked when a run
//! runs out of time (`launch/stall.rs`: which side stalled) and when a page says it
//! failed on a remote sink (`native/run_finished.rs`: is the sink gone).

use crate::domain::sink_url::SinkUrl;
use std::net::SocketAddr;
use std::time::Duration;

/// Where the sink a run uploads to is.
#[derive(Debug, Clone)]
pub enum SinkAt {
    /// A sink elsewhere (`unobserved sink`), as `run --sink-url` names it.
    Remote(SinkUrl),
    /// The run's local sink, on loopback in its host's process.
    Local(SocketAddr),
}

impl SinkAt {
    /// The sink as its end's words name it: its URL's origin, or its address.
    pub fn origin(&self) -> String {
        match self {
            SinkAt::Remote(url) => url.origin(),
            SinkAt::Local(addr) => format!("http://{addr}"),
        }
    }
}

/// Whether the sink at `at` answers a 16-byte upload within `limit`. Blocks at most
/// `limit`; a probe still waiting then is left to end on its own (its connect and
/// read have their own deadlines) or with the process.
pub fn answers_within(at: &SinkAt, limit: Duration) -> bool {
    let (tx, rx) = std::sync::mpsc::channel();
    let at = at.clone();
    let probe = std::thread::Builder::new()
        .name("sink-probe".into())
        .spawn(move || {
            let _ = tx.send(answers(&at));
        });
    probe.is_ok() && rx.recv_timeout(limit).unwrap_or(false)
}

fn answers(at: &SinkAt) -> bool {
    let client = match at {
        SinkAt::Remote(url) => super::probe::Client::connect_sink(url)
            .ok()
            .map(|(c, _)| (c, url.path().to_owned())),
        // Any route will do: its token is the host's, and any answer counts.
        SinkAt::Local(addr) => super::probe::Client::connect(*addr)
            .ok()
            .map(|c| (c, "/".to_owned())),
    };
    client
        .and_then(|(mut c, path)| c.put(&path, 16, &[0u8; 16]).ok())
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listener that takes connections and never answers: a stalled sink.
    #[test]
    fn a_sink_that_takes_the_connection_but_never_answers_does_not_answer() {
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let at = SinkAt::Local(silent.local_addr().unwrap());
        let started = std::time::Instant::now();
        assert!(!answers_within(&at, Duration::from_millis(500)));
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    #[test]
    fn a_running_sink_answers_on_its_address() {
        let sink = crate::sink::Sink::start(crate::sink::SinkConfig::default()).unwrap();
        assert!(answers_within(
            &SinkAt::Local(sink.addr()),
            Duration::from_secs(3)
        ));
    }

    #[test]
    fn nothing_listening_does_not_answer() {
        let addr = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        assert!(!answers_within(
            &SinkAt::Local(addr),
            Duration::from_secs(3)
        ));
    }
}
