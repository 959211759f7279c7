//! The Host headers the sink answers to. A web page can make a name of its own resolve
//! to 127.0.0.1 (DNS rebinding) and then talk to the sink as same-origin; refusing every
//! Host but the sink's own addresses and names closes that door.

use std::net::{IpAddr, SocketAddr};

pub struct Hosts {
    /// `host:port` in lower case, as a browser sends them.
    allowed: Vec<String>,
}

impl Hosts {
    /// For a loopback sink: 127.0.0.1, localhost and [::1] at its port. For one on
    /// another address: that address, every address of this machine when it listens on
    /// all of them, and the names it was told clients use (`--public-host`).
    pub fn new(addr: SocketAddr, interfaces: &[IpAddr], names: &[String]) -> Hosts {
        let port = addr.port();
        let shown = |ip: &IpAddr| match ip {
            IpAddr::V6(v6) => format!("[{v6}]:{port}"),
            v4 => format!("{v4}:{port}"),
        };
        let mut allowed: Vec<String> = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        if !addr.ip().is_loopback() {
            allowed.push(shown(&addr.ip()));
            if addr.ip().is_unspecified() {
                allowed.extend(interfaces.iter().map(shown));
            }
        }
        allowed.extend(names.iter().map(|n| format!("{}:{port}", n.to_lowercase())));
        Hosts { allowed }
    }

    pub fn allows(&self, host: Option<&str>) -> bool {
        host.is_some_and(|h| self.allowed.iter().any(|a| a.eq_ignore_ascii_case(h)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loopback_sink_answers_only_to_its_loopback_names() {
        let h = Hosts::new("127.0.0.1:5000".parse().unwrap(), &[], &[]);
        for ok in [
            "127.0.0.1:5000",
            "localhost:5000",
            "LOCALHOST:5000",
            "[::1]:5000",
        ] {
            assert!(h.allows(Some(ok)), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:5000",
            "127.0.0.1:5001",
            "127.0.0.1",
            "",
        ] {
            assert!(!h.allows(Some(bad)), "{bad}");
        }
        assert!(!h.allows(None), "HTTP/1.1 requires a Host");
    }

    #[test]
    fn a_lan_sink_also_answers_to_its_addresses_and_given_names() {
        let lan: IpAddr = "192.0.2.7".parse().unwrap();
        let h = Hosts::new(
            "0.0.0.0:8099".parse().unwrap(),
            &[lan],
            &["Sink.LAN".into()],
        );
        assert!(h.allows(Some("192.0.2.7:8099")));
        assert!(h.allows(Some("sink.lan:8099")));
        assert!(!h.allows(Some("evil.example:8099")));
    }
}
