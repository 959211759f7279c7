//! Which side stalled when a run runs out of time on a remote sink: the host uploads 16
//! bytes to the sink with its own client, as before the run. An answer (any answer)
//! within `STALL_PROBE` says the sink is there and quick, so the page or its browser
//! stalled; none says the sink, or the link to it, did.

use crate::domain::run::{EndReason, STALL_PROBE};
use crate::domain::sink_url::SinkUrl;
use crate::sink::ceiling::Client;

/// The side that stalled, for a run on `url` that ran out of time. Blocks at most
/// `STALL_PROBE`; a probe still waiting then is left to end with the process.
pub fn side(url: &SinkUrl) -> EndReason {
    let (tx, rx) = std::sync::mpsc::channel();
    let url = url.clone();
    let probe = std::thread::Builder::new()
        .name("stall-probe".into())
        .spawn(move || {
            let answered = Client::connect_sink(&url)
                .ok()
                .and_then(|(mut c, _)| c.put(url.path(), 16, &[0u8; 16]).ok())
                .is_some();
            let _ = tx.send(answered);
        });
    let answered = probe.is_ok() && rx.recv_timeout(STALL_PROBE).unwrap_or(false);
    EndReason::of_stall(answered)
}
