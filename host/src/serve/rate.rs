//! Per-peer rate limits for the page messages: a peer (one address) may start a run
//! now and then and send messages at a pace no real page needs more than; beyond
//! either, 429. Starts are dear (each measures the sink's ceiling), messages cheap.

use governor::{DefaultKeyedRateLimiter, Quota};
use std::net::IpAddr;
use std::num::NonZeroU32;

pub struct Limits {
    starts: DefaultKeyedRateLimiter<IpAddr>,
    messages: DefaultKeyedRateLimiter<IpAddr>,
}

/// What a request costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cost {
    Start,
    Message,
}

const fn nz(n: u32) -> NonZeroU32 {
    match NonZeroU32::new(n) {
        Some(n) => n,
        None => panic!("zero"),
    }
}

/// By default a start every 2 s per peer (`serve --starts-per-minute`: phones behind one
/// NAT are one peer), 3 at once; 200 messages a second, 400 at once (a page of 1 KiB
/// uploads sends one per upload).
pub const STARTS_PER_MINUTE: NonZeroU32 = nz(30);
pub const STARTS_BURST: NonZeroU32 = nz(3);
pub const MESSAGES_PER_SECOND: NonZeroU32 = nz(200);
pub const MESSAGES_BURST: NonZeroU32 = nz(400);

impl Default for Limits {
    fn default() -> Self {
        Limits::new(STARTS_PER_MINUTE)
    }
}

impl Limits {
    pub fn new(starts_per_minute: NonZeroU32) -> Limits {
        Limits {
            starts: DefaultKeyedRateLimiter::keyed(
                Quota::per_minute(starts_per_minute).allow_burst(STARTS_BURST),
            ),
            messages: DefaultKeyedRateLimiter::keyed(
                Quota::per_second(MESSAGES_PER_SECOND).allow_burst(MESSAGES_BURST),
            ),
        }
    }

    /// Whether `peer` may send this now. A request without a known peer is one peer.
    pub fn allow(&self, peer: Option<IpAddr>, cost: Cost) -> bool {
        let peer = peer.unwrap_or(IpAddr::from([0, 0, 0, 0]));
        let limiter = match cost {
            Cost::Start => &self.starts,
            Cost::Message => &self.messages,
        };
        limiter.check_key(&peer).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_past_its_burst_of_starts_is_refused_and_others_are_not() {
        let limits = Limits::default();
        let (a, b) = (
            Some("192.0.2.1".parse().unwrap()),
            Some("192.0.2.2".parse().unwrap()),
        );
        for _ in 0..STARTS_BURST.get() {
            assert!(limits.allow(a, Cost::Start));
        }
        assert!(!limits.allow(a, Cost::Start));
        assert!(
            limits.allow(b, Cost::Start),
            "another peer has its own budget"
        );
        assert!(
            limits.allow(a, Cost::Message),
            "messages have their own budget"
        );
    }

    #[test]
    fn a_peer_past_its_burst_of_messages_is_refused_and_its_starts_are_not_spent() {
        let limits = Limits::default();
        let a = Some("192.0.2.1".parse().unwrap());
        // The burst is far more than refills while the loop runs (200 a second).
        let allowed = (0..MESSAGES_BURST.get() + 50)
            .filter(|_| limits.allow(a, Cost::Message))
            .count() as u32;
        assert!(allowed >= MESSAGES_BURST.get() && allowed < MESSAGES_BURST.get() + 50);
        assert!(!limits.allow(a, Cost::Message));
        assert!(limits.allow(a, Cost::Start));
    }
}
