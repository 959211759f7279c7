//! An encrypted chunk's body, held whole (up to the chunk cap) to decrypt it, with its
//! arrival timeline recorded frame by frame as for plain uploads.

use super::reply::{json_error, Reply};
use super::timeline::Recorder;
use super::Shared;
use crate::domain::timeline::Timeline;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use std::time::Instant;

/// The body and when it arrived; or the reply to send instead (over the cap, broken,
/// too slow).
pub(super) async fn read(
    mut body: Incoming,
    shared: &Shared,
    start: Instant,
    declared: Option<u64>,
) -> Result<(Vec<u8>, Option<Timeline>), Reply> {
    let cap = shared.max_chunk as usize;
    let mut timeline = shared.timeline.then(|| Recorder::new(start));
    let mut held = Vec::with_capacity(declared.unwrap_or(0).min(shared.max_chunk) as usize);
    let over_cap = || json_error(413, &format!("chunk is over the {cap}-byte cap"));
    let read = async {
        while let Some(frame) = body.frame().await {
            let frame = frame
                .map_err(|e| json_error(400, &format!("chunk body could not be read: {e}")))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if let Some(t) = timeline.as_mut() {
                t.frame(Instant::now(), data.len());
            }
            if held.len() + data.len() > cap {
                return Err(over_cap());
            }
            held.extend_from_slice(&data);
        }
        Ok(())
    };
    match tokio::time::timeout(shared.idle_timeout * 4, read).await {
        Ok(Ok(())) => Ok((held, timeline.map(Recorder::finish))),
        Ok(Err(reply)) => Err(reply),
        Err(_) => Err(json_error(408, "chunk body too slow")),
    }
}
