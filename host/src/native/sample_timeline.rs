//! An upload made of several requests (an encrypted file's chunk PUTs, parallel
//! streams) arrives with the sink's record of each request; it is stored as one record
//! on one axis, each request's span kept (`sink::timeline::combine`).

use crate::model::Sample;
use crate::sink::timeline::{combine, Timeline};

/// Where the page hands over the sink's per-request records.
pub const REQUEST_TIMELINES: &str = "request_timelines";

/// Replaces the per-request records with their combination.
pub fn settle(s: &mut Sample) {
    let Some(parts) = s.extra.remove(REQUEST_TIMELINES) else {
        return;
    };
    match serde_json::from_value::<Vec<Timeline>>(parts) {
        Ok(parts) if s.timeline.is_none() => s.timeline = combine(&parts),
        Ok(_) => {}
        Err(e) => log::warn!("a sample's request timelines do not read ({e}); dropped"),
    }
}
