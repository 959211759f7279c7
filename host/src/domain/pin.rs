//! A certificate pin: the SHA-256 of a certificate's DER bytes, the fingerprint every
//! browser's certificate viewer shows. A remote sink's URL carries it in its fragment
//! (`#sha256=<64 hex digits>`), which a browser never sends, and the host accepts that
//! one certificate and no other.

use std::fmt;

/// The fragment's key: `https://HOST:PORT/upload/TOKEN#sha256=<hex>`.
pub const FRAGMENT_KEY: &str = "sha256=";

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CertPin(pub [u8; 32]);

/// Why a fragment is not a pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinError {
    /// The fragment is not `sha256=…`.
    NotSha256,
    /// Not 64 hexadecimal digits (colons between pairs, as browsers show them, allowed).
    NotHex,
}

impl CertPin {
    /// The pin of a certificate, from its DER bytes' digest.
    pub fn of_digest(digest: &[u8]) -> Option<CertPin> {
        digest.try_into().ok().map(CertPin)
    }

    /// `sha256=<hex>`, the URL fragment without its `#`.
    pub fn from_fragment(fragment: &str) -> Result<CertPin, PinError> {
        let hex = fragment
            .strip_prefix(FRAGMENT_KEY)
            .ok_or(PinError::NotSha256)?;
        hex.parse()
    }

    /// `sha256=<hex>`, as a URL's fragment carries it.
    pub fn fragment(&self) -> String {
        format!("{FRAGMENT_KEY}{self}")
    }

    /// Upper-case hex pairs joined by colons, as certificate viewers (and Firefox's
    /// `cert_override.txt`) write a fingerprint.
    pub fn colons(&self) -> String {
        self.0
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(":")
    }
}

impl std::str::FromStr for CertPin {
    type Err = PinError;

    fn from_str(text: &str) -> Result<CertPin, PinError> {
        let digits: Vec<u8> = text.bytes().filter(|&b| b != b':').collect();
        if digits.len() != 64 || !digits.iter().all(u8::is_ascii_hexdigit) {
            return Err(PinError::NotHex);
        }
        let mut pin = [0u8; 32];
        for (i, pair) in digits.chunks(2).enumerate() {
            let pair = std::str::from_utf8(pair).map_err(|_| PinError::NotHex)?;
            pin[i] = u8::from_str_radix(pair, 16).map_err(|_| PinError::NotHex)?;
        }
        Ok(CertPin(pin))
    }
}

/// Lower-case hex, 64 digits: how the URL carries it.
impl fmt::Display for CertPin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for CertPin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CertPin({self})")
    }
}

impl fmt::Display for PinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PinError::NotSha256 => {
                "the URL's fragment must be the certificate's fingerprint, #sha256=<64 hex digits>"
            }
            PinError::NotHex => {
                "the pinned fingerprint must be 64 hex digits (the certificate's SHA-256)"
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_reads_as_it_is_written_with_or_without_colons() {
        let hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
        let pin: CertPin = hex.parse().unwrap();
        assert_eq!(pin.to_string(), hex);
        assert_eq!(pin.colons().parse::<CertPin>().unwrap(), pin);
        assert_eq!(hex.to_uppercase().parse::<CertPin>().unwrap(), pin);
        assert_eq!(CertPin::from_fragment(&pin.fragment()), Ok(pin));
        assert!(pin.colons().starts_with("00:11:22:"));
    }

    #[test]
    fn anything_else_is_refused() {
        for bad in ["", "00", &"0".repeat(63), &"0".repeat(65), &"g".repeat(64)] {
            assert_eq!(bad.parse::<CertPin>(), Err(PinError::NotHex), "{bad:?}");
        }
        assert_eq!(
            CertPin::from_fragment(&format!("sha1={}", "0".repeat(64))),
            Err(PinError::NotSha256)
        );
    }
}
