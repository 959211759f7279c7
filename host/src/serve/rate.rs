//! Rate limits for the page messages: a peer (one address) may start a run now and
//! then, send a test upload (the page's `?probe=1`) as often, and send messages at a
//! pace no real page needs more than; beyond either, 429. Starts and test uploads are
//! also limited in total, whoever sends them: addresses are cheap on a LAN (and on
//! loopback, 127.0.0.2 and up), and each start measures the sink's ceiling while the
//! session waits. Starts are dear, messages cheap.

use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota};
use std::net::IpAddr;
use std::num::NonZeroU32;

pub struct Limits {
    starts: Dear,
    probes: Dear,
    messages: DefaultKeyedRateLimiter<IpAddr>,
}

/// A dear request's limits: per address, and in total.
struct Dear {
    per_peer: DefaultKeyedRateLimiter<IpAddr>,
    total: DefaultDirectRateLimiter,
}

/// What a request costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cost {
    Start,
    /// An upload that names no run: the page's check that the sink takes uploads.
    Probe,
    Message,
}

const fn nz(n: u32) -> NonZeroU32 {
    match NonZeroU32::new(n) {
        Some(n) => n,
        None => panic!("zero"),
    }
}

/// By default a start every 2 s per peer (`serve --starts-per-minute`: phones behind one
/// NAT are one peer), 3 at once; in total twice that rate, 6 at once. Test uploads the
/// same. 200 messages a second, 400 at once (a page of 1 KiB uploads sends one per
/// upload).
pub const STARTS_PER_MINUTE: NonZeroU32 = nz(30);
pub const STARTS_BURST: NonZeroU32 = nz(3);
pub const TOTAL_STARTS_BURST: NonZeroU32 = nz(6);
pub const MESSAGES_PER_SECOND: NonZeroU32 = nz(200);
pub const MESSAGES_BURST: NonZeroU32 = nz(400);

impl Default for Limits {
    fn default() -> Self {
        Limits::new(STARTS_PER_MINUTE)
    }
}

impl Dear {
    fn new(per_minute: NonZeroU32) -> Dear {
        let total = per_minute.saturating_mul(nz(2));
        Dear {
            per_peer: DefaultKeyedRateLimiter::keyed(
                Quota::per_minute(per_minute).allow_burst(STARTS_BURST),
            ),
            total: DefaultDirectRateLimiter::direct(
                Quota::per_minute(total).allow_burst(TOTAL_STARTS_BURST),
            ),
        }
    }

    /// The peer's own budget first: a peer past it spends nobody else's.
    fn allow(&self, peer: IpAddr) -> bool {
        self.per_peer.check_key(&peer).is_ok() && self.total.check().is_ok()
    }
}

impl Limits {
    pub fn new(starts_per_minute: NonZeroU32) -> Limits {
        Limits {
            starts: Dear::new(starts_per_minute),
            probes: Dear::new(starts_per_minute),
            messages: DefaultKeyedRateLimiter::keyed(
                Quota::per_second(MESSAGES_PER_SECOND).allow_burst(MESSAGES_BURST),
            ),
        }
    }

    /// Whether `peer` may send this now. A request without a known peer is one peer.
    pub fn allow(&self, peer: Option<IpAddr>, cost: Cost) -> bool {
        let peer = peer.unwrap_or(IpAddr::from([0, 0, 0, 0]));
        match cost {
            Cost::Start => self.starts.allow(peer),
            Cost::Probe => self.probes.allow(peer),
            Cost::Message => self.messages.check_key(&peer).is_ok(),
        }
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

    #[test]
    fn starts_and_test_uploads_are_limited_in_total_whatever_the_address() {
        for cost in [Cost::Start, Cost::Probe] {
            let limits = Limits::default();
            let allowed = (2..42u8)
                .filter(|i| limits.allow(Some(IpAddr::from([127, 0, 0, *i])), cost))
                .count() as u32;
            assert_eq!(allowed, TOTAL_STARTS_BURST.get(), "{cost:?}");
        }
        let limits = Limits::default();
        let probes = (2..42u8)
            .filter(|i| limits.allow(Some(IpAddr::from([127, 0, 0, *i])), Cost::Probe))
            .count();
        assert!(probes < 40);
        assert!(
            limits.allow(Some(IpAddr::from([127, 0, 0, 9])), Cost::Start),
            "test uploads do not spend starts"
        );
    }
}
