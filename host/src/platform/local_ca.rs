//! The local CA of `unobserved install --local-https`, for everyday browsers: a root
//! that may only ever certify 127.0.0.1 and localhost (X.509 name constraints, which
//! Chromium enforces on roots: tests/local_https.rs), its key owner-only in the state dir. Each
//! native session mints a fresh three-day leaf from it for its TLS sinks.

use crate::platform::local_tls::{leaf_params, set_validity, LocalCert};
use anyhow::{Context, Result};
use rcgen::{
    BasicConstraints, CertificateParams, CidrSubnet, DnType, GeneralSubtree, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, NameConstraints,
};
use std::path::{Path, PathBuf};

/// The name browsers' certificate lists show it under.
pub const NICKNAME: &str = "Unobserved local sink CA (127.0.0.1 and localhost only)";

pub fn cert_path(state_dir: &Path) -> PathBuf {
    state_dir.join("local-https").join("ca.pem")
}

pub fn key_path(state_dir: &Path) -> PathBuf {
    state_dir.join("local-https").join("ca.key")
}

/// Everything about the CA but its key and dates: built the same way to sign with it.
fn ca_params() -> CertificateParams {
    let mut params = CertificateParams::default();
    params.distinguished_name.push(DnType::CommonName, NICKNAME);
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    params.name_constraints = Some(NameConstraints {
        permitted_subtrees: vec![
            GeneralSubtree::IpAddress(CidrSubnet::V4([127, 0, 0, 1], [255, 255, 255, 255])),
            GeneralSubtree::DnsName("localhost".into()),
        ],
        excluded_subtrees: vec![],
    });
    params
}

/// A new CA, valid for two years.
pub fn generate() -> Result<LocalCert> {
    let key = KeyPair::generate()?;
    let mut params = ca_params();
    set_validity(&mut params, 1, 2 * 365);
    let cert = params.self_signed(&key)?;
    Ok(LocalCert {
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    })
}

/// A leaf for `names`, signed by the CA whose key is given: the certificate chain
/// (leaf, then CA) and the leaf's key.
pub fn sign_leaf(ca: &LocalCert, params: CertificateParams) -> Result<LocalCert> {
    let ca_key = KeyPair::from_pem(&ca.key_pem).context("the local CA's key is unreadable")?;
    let issuer = Issuer::new(ca_params(), ca_key);
    let key = KeyPair::generate()?;
    let leaf = params.signed_by(&key, &issuer)?;
    Ok(LocalCert {
        cert_pem: leaf.pem() + &ca.cert_pem,
        key_pem: key.serialize_pem(),
    })
}

/// This session's leaf for the TLS sinks, from the installed CA; the error says how to
/// install one.
pub fn session_leaf() -> Result<LocalCert, String> {
    let state_dir = crate::platform::state::state_dir().map_err(|e| e.to_string())?;
    let read = |p: PathBuf| std::fs::read_to_string(&p).map_err(|e| (p, e));
    let ca = match (read(cert_path(&state_dir)), read(key_path(&state_dir))) {
        (Ok(cert_pem), Ok(key_pem)) => LocalCert { cert_pem, key_pem },
        (Err((p, e)), _) | (_, Err((p, e))) => {
            return Err(format!(
                "this browser has no local HTTPS: {} ({e}). Run `unobserved install --local-https` once (docs/transports.md: Local HTTPS), or measure TLS transports with `unobserved run --transport`",
                p.display()
            ))
        }
    };
    leaf_params()
        .and_then(|params| sign_leaf(&ca, params))
        .map_err(|e| format!("cannot sign this session's certificate with the local CA: {e:#}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_rustls::rustls::client::danger::ServerCertVerifier;

    #[test]
    fn leaves_chain_to_the_ca_and_the_ca_is_constrained_to_loopback_names() {
        let ca = generate().unwrap();
        let leaf = sign_leaf(&ca, leaf_params().unwrap()).unwrap();
        let chain: Vec<_> = rustls_pemfile::certs(&mut leaf.cert_pem.as_bytes())
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(chain.len(), 2, "leaf, then the CA");
        let ca_der = rustls_pemfile::certs(&mut ca.cert_pem.as_bytes())
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(chain[1], ca_der);
        // The nameConstraints extension (2.5.29.30) is in the CA, critical or not.
        let name_constraints_oid = [0x06, 0x03, 0x55, 0x1d, 0x1e];
        assert!(ca_der
            .as_ref()
            .windows(5)
            .any(|w| w == name_constraints_oid));
        // rustls verifies the chain the way a client would: the leaf is good for
        // 127.0.0.1 under this root.
        let mut roots = tokio_rustls::rustls::RootCertStore::empty();
        roots.add(ca_der).unwrap();
        let verifier = tokio_rustls::rustls::client::WebPkiServerVerifier::builder_with_provider(
            std::sync::Arc::new(roots),
            std::sync::Arc::new(tokio_rustls::rustls::crypto::ring::default_provider()),
        )
        .build()
        .unwrap();
        let name = tokio_rustls::rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
        let now = tokio_rustls::rustls::pki_types::UnixTime::now();
        verifier
            .verify_server_cert(&chain[0], &[], &name, &[], now)
            .unwrap();
        // A leaf for another name signed by the same CA is refused: the constraint
        // holds even for whoever has the key.
        let mut evil = CertificateParams::new(vec!["example.com".into()]).unwrap();
        evil.extended_key_usages = leaf_params().unwrap().extended_key_usages;
        let evil = sign_leaf(&ca, evil).unwrap();
        let evil_der = rustls_pemfile::certs(&mut evil.cert_pem.as_bytes())
            .next()
            .unwrap()
            .unwrap();
        let evil_name =
            tokio_rustls::rustls::pki_types::ServerName::try_from("example.com").unwrap();
        assert!(verifier
            .verify_server_cert(&evil_der, &[], &evil_name, &[], now)
            .is_err());
    }
}
