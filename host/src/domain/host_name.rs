//! A name or address other devices reach this machine by (`--public-host`). It goes into
//! the printed URLs, the QR code, the sink's Host rule and its certificate, so only what
//! a URL can carry as its host is taken: a DNS name, an IPv4 address, or an IPv6 one
//! (written in brackets in the URL).

use std::net::{Ipv4Addr, Ipv6Addr};

/// Longest DNS name as written (RFC 1035), and longest label.
pub const NAME_CHARS: usize = 253;
pub const LABEL_CHARS: usize = 63;

/// A usable host, as it goes into a URL (an IPv6 address in brackets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicHost(String);

/// Why a text is not a usable host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostError {
    Empty,
    /// Over `NAME_CHARS` characters.
    TooLong {
        chars: usize,
    },
    /// A character no host name has: a space, a scheme's `:` or `/`, a `@`, …
    BadCharacter,
    /// An empty label (`a..b`, a trailing dot), one over `LABEL_CHARS`, a hyphen at a
    /// label's end, or all digits that are not an IPv4 address.
    BadLabel,
    /// Brackets that do not hold exactly an IPv6 address (`[::1`).
    BadIpv6,
}

impl PublicHost {
    pub fn parse(text: &str) -> Result<PublicHost, HostError> {
        if text.is_empty() {
            return Err(HostError::Empty);
        }
        if let Some(inner) = text.strip_prefix('[') {
            let v6 = inner
                .strip_suffix(']')
                .and_then(|a| a.parse::<Ipv6Addr>().ok());
            return v6
                .map(|a| PublicHost(format!("[{a}]")))
                .ok_or(HostError::BadIpv6);
        }
        if let Ok(v6) = text.parse::<Ipv6Addr>() {
            return Ok(PublicHost(format!("[{v6}]")));
        }
        let chars = text.chars().count();
        if chars > NAME_CHARS {
            return Err(HostError::TooLong { chars });
        }
        if !text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        {
            return Err(HostError::BadCharacter);
        }
        let bad_label = |l: &str| {
            l.is_empty() || l.len() > LABEL_CHARS || l.starts_with('-') || l.ends_with('-')
        };
        // A URL reads a name whose last label is all digits as an IPv4 address.
        let numeric = text.rsplit('.').next().unwrap_or_default();
        let not_ipv4 =
            numeric.bytes().all(|b| b.is_ascii_digit()) && text.parse::<Ipv4Addr>().is_err();
        if text.split('.').any(bad_label) || not_ipv4 {
            return Err(HostError::BadLabel);
        }
        Ok(PublicHost(text.to_ascii_lowercase()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for PublicHost {
    type Err = HostError;
    fn from_str(text: &str) -> Result<PublicHost, HostError> {
        PublicHost::parse(text)
    }
}

impl std::error::Error for HostError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_a_url_can_carry_as_its_host_is_taken() {
        let long = format!("{}.lan", "a".repeat(5000));
        let label = format!("{}.lan", "a".repeat(64));
        let refused: &[(&str, HostError)] = &[
            ("", HostError::Empty),
            ("a b", HostError::BadCharacter),
            ("http://x", HostError::BadCharacter),
            ("x:8080", HostError::BadCharacter),
            ("user@x", HostError::BadCharacter),
            ("[::1", HostError::BadIpv6),
            ("[sink.lan]", HostError::BadIpv6),
            ("a..b", HostError::BadLabel),
            ("sink.lan.", HostError::BadLabel),
            ("-sink.lan", HostError::BadLabel),
            ("999.1.1.1", HostError::BadLabel),
            (&label, HostError::BadLabel),
            (&long, HostError::TooLong { chars: 5004 }),
        ];
        for (text, why) in refused {
            assert_eq!(PublicHost::parse(text), Err(*why), "{text:?}");
        }
        let taken = [
            ("sink.lan", "sink.lan"),
            ("Sink.LAN", "sink.lan"),
            ("192.168.1.5", "192.168.1.5"),
            ("[::1]", "[::1]"),
            ("fe80::1", "[fe80::1]"),
            ("my-box", "my-box"),
        ];
        for (text, host) in taken {
            assert_eq!(PublicHost::parse(text).map(|h| h.0), Ok(host.to_owned()));
        }
    }
}
