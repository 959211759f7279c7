//! Who holds the sink's connections. A connection is "busy" while a request that carries
//! the token is in flight (its reply's body included); otherwise it is idle: one that
//! has not yet sent such a request, or a kept-alive one between requests. Under
//! pressure the idle connection that has been idle longest makes room for a newcomer,
//! so a peer holding idle connections (kept alive, or never used) can never lock out a
//! client that actually sends a request. Each peer has a cap of its own, loopback too
//! (a hostile page on this machine is a loopback peer as the browser is): past it, the
//! peer's own longest-idle connection makes room, or the newcomer is refused.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

pub struct Ledger {
    max: usize,
    per_peer: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    by_peer: HashMap<IpAddr, usize>,
    /// Every connection holding a slot; an evicted one is gone from here at once, its
    /// slot given to the newcomer.
    conns: HashMap<u64, Conn>,
    next_id: u64,
    /// Orders idleness: a connection that became idle later has a larger stamp.
    clock: u64,
}

struct Conn {
    peer: IpAddr,
    /// Requests in flight that carry the token.
    busy: usize,
    /// When it last became idle (`State::clock`).
    idle_since: u64,
    evict: Option<oneshot::Sender<()>>,
}

/// Why a connection was not let in.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    Full,
    PeerFull,
}

/// A connection's place in the ledger; gives it back when dropped.
pub struct Slot {
    ledger: Arc<Ledger>,
    id: u64,
    /// Fires when the connection is evicted to make room.
    pub evicted: Option<oneshot::Receiver<()>>,
}

/// A request in flight on a slot's connection: the connection is busy until every
/// such guard is dropped.
pub struct Busy {
    ledger: Arc<Ledger>,
    id: u64,
}

impl Ledger {
    /// `max` connections in all; each peer at most a quarter of them.
    pub fn new(max: usize) -> Arc<Ledger> {
        Arc::new(Ledger {
            max,
            per_peer: (max / 4).max(1),
            state: Mutex::default(),
        })
    }

    pub fn admit(self: &Arc<Self>, peer: IpAddr) -> Result<Slot, Refused> {
        let mut s = self.state.lock().unwrap();
        if s.by_peer.get(&peer).copied().unwrap_or(0) >= self.per_peer
            && !s.evict_idlest(Some(peer))
        {
            return Err(Refused::PeerFull);
        }
        if s.conns.len() >= self.max && !s.evict_idlest(None) {
            return Err(Refused::Full);
        }
        let id = s.next_id;
        s.next_id += 1;
        s.clock += 1;
        let (tx, rx) = oneshot::channel();
        let conn = Conn {
            peer,
            busy: 0,
            idle_since: s.clock,
            evict: Some(tx),
        };
        s.conns.insert(id, conn);
        *s.by_peer.entry(peer).or_insert(0) += 1;
        Ok(Slot {
            ledger: self.clone(),
            id,
            evicted: Some(rx),
        })
    }

    pub fn open(&self) -> usize {
        self.state.lock().unwrap().conns.len()
    }
}

impl State {
    /// Closes the connection idle longest (of `peer`, when given), giving its slot back
    /// at once; false when every candidate is busy.
    fn evict_idlest(&mut self, peer: Option<IpAddr>) -> bool {
        let idlest = self
            .conns
            .iter()
            .filter(|(_, c)| c.busy == 0 && peer.is_none_or(|p| p == c.peer))
            .min_by_key(|(_, c)| c.idle_since)
            .map(|(id, _)| *id);
        let Some(id) = idlest else { return false };
        let mut conn = self.forget(id).expect("listed");
        if let Some(evict) = conn.evict.take() {
            let _ = evict.send(());
        }
        true
    }

    fn forget(&mut self, id: u64) -> Option<Conn> {
        let conn = self.conns.remove(&id)?;
        if let Some(n) = self.by_peer.get_mut(&conn.peer) {
            *n -= 1;
            if *n == 0 {
                self.by_peer.remove(&conn.peer);
            }
        }
        Some(conn)
    }
}

impl Slot {
    /// A request that carries the token began on this connection: it is not evicted
    /// until the request (and its reply) is done.
    pub fn busy(&self) -> Busy {
        let mut s = self.ledger.state.lock().unwrap();
        if let Some(conn) = s.conns.get_mut(&self.id) {
            conn.busy += 1;
        }
        Busy {
            ledger: self.ledger.clone(),
            id: self.id,
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut s = self.ledger.state.lock().unwrap();
        s.clock += 1;
        let now = s.clock;
        if let Some(conn) = s.conns.get_mut(&self.id) {
            conn.busy -= 1;
            if conn.busy == 0 {
                conn.idle_since = now;
            }
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        // An evicted connection's slot was given back when it was evicted.
        self.ledger.state.lock().unwrap().forget(self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCAL: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    fn evicted(slot: &mut Slot) -> bool {
        slot.evicted.as_mut().unwrap().try_recv().is_ok()
    }

    #[test]
    fn a_full_ledger_evicts_the_connection_idle_longest_for_a_newcomer() {
        let ledger = Ledger::new(2);
        let peers: [IpAddr; 3] =
            ["192.0.2.1", "192.0.2.2", "192.0.2.3"].map(|p| p.parse().unwrap());
        let mut idle = ledger.admit(peers[0]).unwrap();
        let mut busy = ledger.admit(peers[1]).unwrap();
        let request = busy.busy();
        let mut newcomer = ledger.admit(peers[2]).unwrap();
        assert!(evicted(&mut idle), "the idle one goes");
        assert!(!evicted(&mut busy));
        assert_eq!(ledger.open(), 2);
        drop(idle);
        assert_eq!(ledger.open(), 2, "the evicted slot is not given back twice");
        let _newcomers_request = newcomer.busy();
        assert_eq!(
            ledger.admit(LOCAL).err(),
            Some(Refused::Full),
            "nothing idle to evict"
        );
        // A kept-alive connection whose request is done is idle again.
        drop(request);
        assert!(ledger.admit(LOCAL).is_ok());
        assert!(evicted(&mut busy));
        assert!(!evicted(&mut newcomer));
    }

    #[test]
    fn the_connection_idle_longest_goes_first_kept_alive_or_never_used() {
        let ledger = Ledger::new(12); // 3 a peer
        let mut used = ledger.admit(LOCAL).unwrap();
        let mut fresh = ledger.admit(LOCAL).unwrap();
        let held = ledger.admit(LOCAL).unwrap();
        let _busy = held.busy();
        drop(used.busy()); // used and done: idle since now, after `fresh`
        let _a = ledger.admit(LOCAL).unwrap();
        assert!(evicted(&mut fresh) && !evicted(&mut used));
        let _b = ledger.admit(LOCAL).unwrap();
        assert!(evicted(&mut used));
    }

    #[test]
    fn every_peer_has_a_cap_of_its_own_loopback_too() {
        for peer in [LOCAL, "192.0.2.9".parse().unwrap()] {
            let ledger = Ledger::new(8);
            let held: Vec<Slot> = (0..2).map(|_| ledger.admit(peer).unwrap()).collect();
            let busy: Vec<Busy> = held.iter().map(Slot::busy).collect();
            assert_eq!(ledger.admit(peer).err(), Some(Refused::PeerFull), "{peer}");
            assert!(ledger.admit("192.0.2.10".parse().unwrap()).is_ok());
            // Past its cap, a peer's own idle connection makes room: not another's.
            drop(busy);
            let mut other = ledger.admit("192.0.2.11".parse().unwrap()).unwrap();
            let _again = ledger.admit(peer).unwrap();
            assert!(!evicted(&mut other));
            assert_eq!(
                ledger.open(),
                3,
                "{peer}: one of its two went, the other's stayed"
            );
            drop(held);
        }
    }
}
