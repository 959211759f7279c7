//! The local sink's TLS certificate for one run: made fresh, valid for 127.0.0.1 and
//! localhost only, for three days, and trusted only by that run's throwaway profile
//! (Chromium by its public key's hash, Firefox by an override for each sink port).
//! Its key lives in the run's private workspace and goes with it.

use anyhow::Result;
use base64::Engine;
use rcgen::{CertificateParams, DnType, ExtendedKeyUsagePurpose, KeyPair, PublicKeyData};
use serde::{Deserialize, Serialize};

/// The names the certificate is valid for: the loopback sink's, nothing else.
pub const NAMES: [&str; 2] = ["127.0.0.1", "localhost"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocalCert {
    pub cert_pem: String,
    pub key_pem: String,
}

/// How a browser can be told to trust exactly this certificate.
#[derive(Debug, Clone, PartialEq)]
pub struct Pins {
    /// Base64 SHA-256 of the SubjectPublicKeyInfo: Chromium's
    /// `--ignore-certificate-errors-spki-list`.
    pub spki_sha256_base64: String,
    /// SHA-256 of the certificate, upper-case hex pairs joined by colons: Firefox's
    /// `cert_override.txt`.
    pub cert_sha256_colons: String,
}

impl LocalCert {
    pub fn generate() -> Result<(LocalCert, Pins)> {
        let key = KeyPair::generate()?;
        let cert = leaf_params()?.self_signed(&key)?;
        let sha = |bytes: &[u8]| ring::digest::digest(&ring::digest::SHA256, bytes);
        let pins = Pins {
            spki_sha256_base64: base64::engine::general_purpose::STANDARD
                .encode(sha(&key.subject_public_key_info())),
            cert_sha256_colons: sha(cert.der())
                .as_ref()
                .iter()
                .map(|b| format!("{b:02X}"))
                .collect::<Vec<_>>()
                .join(":"),
        };
        Ok((
            LocalCert {
                cert_pem: cert.pem(),
                key_pem: key.serialize_pem(),
            },
            pins,
        ))
    }
}

/// Valid from `before` days ago to `after` days from now, by calendar day.
pub(crate) fn set_validity(params: &mut CertificateParams, before: u64, after: u64) {
    use chrono::Datelike;
    let today = chrono::Utc::now().date_naive();
    let day = |d: chrono::NaiveDate| rcgen::date_time_ymd(d.year(), d.month() as u8, d.day() as u8);
    params.not_before = day(today - chrono::Days::new(before));
    params.not_after = day(today + chrono::Days::new(after));
}

/// A certificate for the loopback sink's names, for one key.
pub(crate) fn leaf_params() -> Result<CertificateParams> {
    let mut params = CertificateParams::new(NAMES.map(String::from).to_vec())?;
    params
        .distinguished_name
        .push(DnType::CommonName, "unobserved local sink");
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    set_validity(&mut params, 1, 2);
    Ok(params)
}

/// The loopback sink's places: each of its ports by both names.
pub fn loopback_places(ports: &[u16]) -> Vec<(String, u16)> {
    ports
        .iter()
        .flat_map(|&port| NAMES.map(|name| (name.to_owned(), port)))
        .collect()
}

/// Firefox's per-profile certificate overrides: this certificate at each host and
/// port. (Firefox has no flag like Chromium's; the file is read at start.)
pub fn firefox_overrides(pins: &Pins, places: &[(String, u16)]) -> String {
    let mut text = String::from(
        "# PSM Certificate Override Settings file\n# This is a generated file!  Do not edit.\n",
    );
    for (name, port) in places {
        // host:port:origin-attributes, then the hash algorithm's OID and the hash.
        text += &format!(
            "{name}:{port}:\tOID.2.16.840.1.101.3.4.2.1\t{}\t\n",
            pins.cert_sha256_colons
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_certificate_names_only_the_loopback_sink_and_pins_its_own_key() {
        let (cert, pins) = LocalCert::generate().unwrap();
        let der = rustls_pemfile::certs(&mut cert.cert_pem.as_bytes())
            .next()
            .unwrap()
            .unwrap();
        let hay = der.as_ref();
        assert!(
            hay.windows(4).any(|w| w == [127, 0, 0, 1]),
            "an IP SAN for 127.0.0.1"
        );
        assert!(hay.windows(9).any(|w| w == b"localhost"));
        let key_der = rustls_pemfile::private_key(&mut cert.key_pem.as_bytes())
            .unwrap()
            .unwrap();
        let key = KeyPair::try_from(key_der.secret_der()).unwrap();
        let spki = ring::digest::digest(&ring::digest::SHA256, &key.subject_public_key_info());
        assert_eq!(
            pins.spki_sha256_base64,
            base64::engine::general_purpose::STANDARD.encode(spki)
        );
        assert_eq!(pins.cert_sha256_colons.len(), 32 * 3 - 1);
        let (other, other_pins) = LocalCert::generate().unwrap();
        assert_ne!(other, cert, "fresh per run");
        assert_ne!(other_pins, pins);
    }

    #[test]
    fn firefox_overrides_name_each_port_by_both_names() {
        let pins = Pins {
            spki_sha256_base64: String::new(),
            cert_sha256_colons: "AB:CD".into(),
        };
        let text = firefox_overrides(&pins, &loopback_places(&[4433, 4434]));
        for line in [
            "127.0.0.1:4433:\tOID.2.16.840.1.101.3.4.2.1\tAB:CD\t",
            "localhost:4434:\tOID.2.16.840.1.101.3.4.2.1\tAB:CD\t",
        ] {
            assert!(text.lines().any(|l| l == line), "{text}");
        }
    }
}
