//! Who holds the sink's connections. A connection that has not yet sent a complete
//! request is "pending"; when every slot is taken, the oldest pending one makes room
//! for a newcomer, so a peer opening idle connections can never lock out a client that
//! actually sends a request. A peer other than loopback also has a cap of its own.

use std::collections::{HashMap, VecDeque};
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
    open: usize,
    by_peer: HashMap<IpAddr, usize>,
    /// Oldest first: (connection id, how to close it).
    pending: VecDeque<(u64, oneshot::Sender<()>)>,
    /// Evicted connections whose slot already went to a newcomer.
    evicted: std::collections::HashSet<u64>,
    next_id: u64,
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
    peer: IpAddr,
    /// Fires when the connection is evicted to make room.
    pub evicted: Option<oneshot::Receiver<()>>,
}

impl Ledger {
    pub fn new(max: usize) -> Arc<Ledger> {
        Arc::new(Ledger {
            max,
            per_peer: (max / 4).max(1),
            state: Mutex::default(),
        })
    }

    pub fn admit(self: &Arc<Self>, peer: IpAddr) -> Result<Slot, Refused> {
        let mut s = self.state.lock().unwrap();
        let from_peer = s.by_peer.get(&peer).copied().unwrap_or(0);
        // Everything local shares 127.0.0.1, the browser included: no per-peer cap there.
        if !peer.is_loopback() && from_peer >= self.per_peer {
            return Err(Refused::PeerFull);
        }
        if s.open >= self.max {
            // Make room by closing the oldest connection that has sent nothing useful.
            let Some((old, evict)) = s.pending.pop_front() else {
                return Err(Refused::Full);
            };
            let _ = evict.send(());
            // Its slot is the newcomer's now; its own drop must not give it back again.
            s.evicted.insert(old);
            s.open -= 1;
        }
        let id = s.next_id;
        s.next_id += 1;
        let (tx, rx) = oneshot::channel();
        s.pending.push_back((id, tx));
        s.open += 1;
        *s.by_peer.entry(peer).or_insert(0) += 1;
        Ok(Slot {
            ledger: self.clone(),
            id,
            peer,
            evicted: Some(rx),
        })
    }

    pub fn open(&self) -> usize {
        self.state.lock().unwrap().open
    }
}

impl Slot {
    /// The connection sent a complete request: it is no longer a candidate for eviction.
    pub fn requested(&self) {
        let mut s = self.ledger.state.lock().unwrap();
        s.pending.retain(|(id, _)| *id != self.id);
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut s = self.ledger.state.lock().unwrap();
        s.pending.retain(|(id, _)| *id != self.id);
        if !s.evicted.remove(&self.id) {
            s.open -= 1;
        }
        if let Some(n) = s.by_peer.get_mut(&self.peer) {
            *n -= 1;
            if *n == 0 {
                s.by_peer.remove(&self.peer);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCAL: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    #[test]
    fn a_full_ledger_evicts_the_oldest_pending_connection_for_a_newcomer() {
        let ledger = Ledger::new(2);
        let mut idle = ledger.admit(LOCAL).unwrap();
        let busy = ledger.admit(LOCAL).unwrap();
        busy.requested();
        let newcomer = ledger.admit(LOCAL).unwrap();
        assert!(
            idle.evicted.as_mut().unwrap().try_recv().is_ok(),
            "the idle one goes"
        );
        assert_eq!(ledger.open(), 2);
        drop(idle);
        assert_eq!(ledger.open(), 2, "the evicted slot is not given back twice");
        newcomer.requested();
        assert_eq!(
            ledger.admit(LOCAL).err(),
            Some(Refused::Full),
            "nothing left to evict"
        );
        drop((busy, newcomer));
        assert_eq!(ledger.open(), 0);
    }

    #[test]
    fn a_remote_peer_has_a_cap_of_its_own() {
        let ledger = Ledger::new(8);
        let peer: IpAddr = "192.0.2.9".parse().unwrap();
        let held: Vec<Slot> = (0..2).map(|_| ledger.admit(peer).unwrap()).collect();
        assert_eq!(ledger.admit(peer).err(), Some(Refused::PeerFull));
        assert!(ledger.admit("192.0.2.10".parse().unwrap()).is_ok());
        drop(held);
        assert!(ledger.admit(peer).is_ok());
    }
}
