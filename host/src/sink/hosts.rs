//! The names the sink answers to. A web page can make a name of its own resolve to
//! 127.0.0.1 (DNS rebinding) and then talk to the sink as same-origin; refusing every
//! target but the sink's own addresses and names closes that door. The sink's own
//! pages are the origins made of its scheme and these names (`owns_origin`), so the
//! Host rule and the CORS rule cannot drift apart.

use super::headers::{at_most_one, Repeated};
use hyper::header::{HeaderMap, HOST};
use hyper::Uri;
use std::net::{IpAddr, SocketAddr};

/// What the sink speaks: plain HTTP, or HTTPS when it has a certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Http,
    Https,
}

impl Scheme {
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }
}

impl std::fmt::Display for Scheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

pub struct Hosts {
    scheme: Scheme,
    /// `host:port` in lower case, as a browser sends them.
    allowed: Vec<String>,
}

/// Why a request's target was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Misdirected {
    /// A name, port or scheme this sink does not answer to (or no name at all): 421.
    NotOurs,
    /// Two Host headers, or a Host contradicting the target's own authority: 400.
    Ambiguous,
}

impl From<Repeated> for Misdirected {
    fn from(_: Repeated) -> Self {
        Misdirected::Ambiguous
    }
}

impl Hosts {
    /// For a loopback sink: 127.0.0.1, localhost and [::1] at its port. For one on
    /// another address: that address, every address of this machine when it listens on
    /// all of them, and the names it was told clients use (`--public-host`).
    pub fn new(addr: SocketAddr, scheme: Scheme, interfaces: &[IpAddr], names: &[String]) -> Hosts {
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
        // The address it listens on (another loopback one, such as 127.0.0.2, too).
        allowed.push(shown(&addr.ip()));
        if addr.ip().is_unspecified() {
            allowed.extend(interfaces.iter().map(shown));
        }
        allowed.extend(names.iter().map(|n| format!("{}:{port}", n.to_lowercase())));
        Hosts { scheme, allowed }
    }

    fn allows(&self, authority: &str) -> bool {
        self.allowed
            .iter()
            .any(|a| a.eq_ignore_ascii_case(authority))
    }

    /// The request names this sink. An absolute-form target's authority (and HTTP/2's
    /// `:authority`, which hyper puts in the URI) takes precedence over Host (RFC 9112
    /// §3.2.2), so it is the one checked; a Host beside it must say the same.
    pub fn check_target(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Misdirected> {
        let host = at_most_one(headers, &HOST)?
            .map(|h| h.to_str().map_err(|_| Misdirected::NotOurs))
            .transpose()?;
        if uri.scheme_str().is_some_and(|s| s != self.scheme.as_str()) {
            return Err(Misdirected::NotOurs);
        }
        match (uri.authority().map(|a| a.as_str()), host) {
            (Some(target), _) if !self.allows(target) => Err(Misdirected::NotOurs),
            (Some(target), Some(h)) if !target.eq_ignore_ascii_case(h) => {
                Err(Misdirected::Ambiguous)
            }
            (Some(_), _) => Ok(()),
            (None, Some(h)) if self.allows(h) => Ok(()),
            // HTTP/1.1 requires a Host.
            (None, _) => Err(Misdirected::NotOurs),
        }
    }

    /// The Origin of one of the sink's own pages: its scheme and a name it answers to.
    pub fn owns_origin(&self, origin: &str) -> bool {
        origin
            .strip_prefix(self.scheme.as_str())
            .and_then(|rest| rest.strip_prefix("://"))
            .is_some_and(|authority| self.allows(authority))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn loopback() -> Hosts {
        Hosts::new("127.0.0.1:5000".parse().unwrap(), Scheme::Http, &[], &[])
    }

    /// The verdict on a request for `target` with these Host headers.
    fn check(h: &Hosts, target: &str, hosts: &[&str]) -> Result<(), Misdirected> {
        let mut headers = HeaderMap::new();
        for v in hosts {
            headers.append(HOST, HeaderValue::from_str(v).unwrap());
        }
        h.check_target(&target.parse().unwrap(), &headers)
    }

    #[test]
    fn a_loopback_sink_answers_only_to_its_loopback_names() {
        let h = loopback();
        for ok in [
            "127.0.0.1:5000",
            "localhost:5000",
            "LOCALHOST:5000",
            "[::1]:5000",
        ] {
            assert_eq!(check(&h, "/upload/t", &[ok]), Ok(()), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:5000",
            "127.0.0.1:5001",
            "127.0.0.1",
            "",
        ] {
            assert_eq!(check(&h, "/", &[bad]), Err(Misdirected::NotOurs), "{bad}");
        }
        assert_eq!(
            check(&h, "/", &[]),
            Err(Misdirected::NotOurs),
            "HTTP/1.1 requires a Host"
        );
    }

    #[test]
    fn a_lan_sink_also_answers_to_its_addresses_and_given_names() {
        let lan: IpAddr = "192.0.2.7".parse().unwrap();
        let h = Hosts::new(
            "0.0.0.0:8099".parse().unwrap(),
            Scheme::Http,
            &[lan],
            &["Sink.LAN".into()],
        );
        assert_eq!(check(&h, "/", &["192.0.2.7:8099"]), Ok(()));
        assert_eq!(check(&h, "/", &["sink.lan:8099"]), Ok(()));
        assert_eq!(
            check(&h, "/", &["evil.example:8099"]),
            Err(Misdirected::NotOurs)
        );
        assert!(h.owns_origin("http://sink.lan:8099"));
    }

    #[test]
    fn an_absolute_target_is_checked_before_host_and_host_must_agree_with_it() {
        let h = loopback();
        let good = "127.0.0.1:5000";
        let evil = "http://evil.example/upload/t";
        assert_eq!(check(&h, evil, &[good]), Err(Misdirected::NotOurs));
        assert_eq!(check(&h, evil, &[]), Err(Misdirected::NotOurs));
        assert_eq!(check(&h, "http://127.0.0.1:5000/upload/t", &[good]), Ok(()));
        assert_eq!(check(&h, "http://127.0.0.1:5000/upload/t", &[]), Ok(()));
        assert_eq!(
            check(&h, "http://localhost:5000/upload/t", &[good]),
            Err(Misdirected::Ambiguous),
            "two names of ours, but not the same one"
        );
        assert_eq!(
            check(&h, "https://127.0.0.1:5000/upload/t", &[good]),
            Err(Misdirected::NotOurs),
            "a plain sink does not serve https"
        );
    }

    #[test]
    fn two_host_headers_are_ambiguous_even_when_both_are_ours() {
        let h = loopback();
        let good = "127.0.0.1:5000";
        assert_eq!(check(&h, "/", &[good, good]), Err(Misdirected::Ambiguous));
        assert_eq!(
            check(&h, "/", &[good, "evil.example"]),
            Err(Misdirected::Ambiguous)
        );
    }

    #[test]
    fn the_own_origins_are_the_scheme_and_the_names_of_the_host_rule() {
        let h = loopback();
        for ok in [
            "http://127.0.0.1:5000",
            "http://localhost:5000",
            "http://[::1]:5000",
        ] {
            assert!(h.owns_origin(ok), "{ok}");
        }
        for bad in [
            "https://127.0.0.1:5000",
            "http://127.0.0.1:5001",
            "http://127.0.0.1:5000/",
            "http://evil.example:5000",
            "null",
            "127.0.0.1:5000",
        ] {
            assert!(!h.owns_origin(bad), "{bad}");
        }
    }
}
