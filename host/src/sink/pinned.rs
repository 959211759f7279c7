//! The host's TLS client for a remote sink (`unobserved sink --tls`): it accepts exactly
//! the certificate the sink URL pins (`domain::pin`) and no other. No CA, name or date
//! decides: the certificate's own SHA-256 does, as a person compares the fingerprint a
//! browser shows. Every connection the host makes to such a sink (the check before a
//! run, the link's ceiling, claiming the ledger) goes through `connect`.

use crate::domain::pin::CertPin;
use base64::Engine;
use std::sync::{Arc, Mutex};
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::client::danger::{
    HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier,
};
use tokio_rustls::rustls::crypto::{self, CryptoProvider};
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use tokio_rustls::rustls::{self, CertificateError, DigitallySignedStruct, SignatureScheme};

/// The certificate a sink presented, as each browser is told to trust it.
#[derive(Debug, Clone, PartialEq)]
pub struct Presented {
    pub cert: CertPin,
    /// SHA-256 of its SubjectPublicKeyInfo, base64: Chromium's
    /// `--ignore-certificate-errors-spki-list`.
    pub spki_sha256_base64: String,
}

impl Presented {
    pub fn of(der: &CertificateDer<'_>) -> Result<Presented, rustls::Error> {
        let sha = |bytes: &[u8]| ring::digest::digest(&ring::digest::SHA256, bytes);
        let parsed = webpki::EndEntityCert::try_from(der)
            .map_err(|_| rustls::Error::InvalidCertificate(CertificateError::BadEncoding))?;
        Ok(Presented {
            cert: CertPin::of_digest(sha(der.as_ref()).as_ref()).expect("SHA-256 is 32 bytes"),
            spki_sha256_base64: base64::engine::general_purpose::STANDARD
                .encode(sha(parsed.subject_public_key_info().as_ref())),
        })
    }

    /// How a throwaway profile trusts it (`local_tls::Pins`, as for the local sink).
    pub fn pins(&self) -> crate::platform::local_tls::Pins {
        crate::platform::local_tls::Pins {
            spki_sha256_base64: self.spki_sha256_base64.clone(),
            cert_sha256_colons: self.cert.colons(),
        }
    }
}

/// Why the host could not reach a pinned sink.
#[derive(Debug, thiserror::Error)]
pub enum ReachError {
    /// The sink answered with another certificate than the URL pins.
    #[error("it presented a certificate with SHA-256 {}, but the URL pins {}: refused (a different or regenerated certificate, or someone else's server)", .presented.cert.colons(), .pinned.colons())]
    WrongCertificate {
        pinned: CertPin,
        presented: Box<Presented>,
    },
    /// The sink negotiated another protocol than its URL says it offers (an h1-tls URL
    /// to a sink that speaks HTTP/2, or the other way round), so the browser's uploads
    /// would not travel over the transport they are labelled with.
    #[error("it offers {offered} by ALPN, but the URL says {said}: start the sink with `--transport {said}`, or give the URL it printed")]
    OtherTransport {
        said: crate::domain::arm::Transport,
        offered: crate::domain::arm::Transport,
    },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl From<ReachError> for std::io::Error {
    fn from(e: ReachError) -> std::io::Error {
        match e {
            ReachError::Io(e) => e,
            other => std::io::Error::new(std::io::ErrorKind::PermissionDenied, other.to_string()),
        }
    }
}

/// Accepts the pinned certificate only; remembers what was presented either way.
#[derive(Debug)]
struct PinVerifier {
    pin: CertPin,
    provider: Arc<CryptoProvider>,
    presented: Mutex<Option<Presented>>,
}

impl ServerCertVerifier for PinVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let presented = Presented::of(end_entity)?;
        let matches = presented.cert == self.pin;
        *self.presented.lock().unwrap_or_else(|p| p.into_inner()) = Some(presented);
        if matches {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// A TLS connection over `tcp` to the sink named `host`, offering `alpn`, that
/// succeeds only if the sink presents the pinned certificate.
pub async fn connect(
    tcp: tokio::net::TcpStream,
    host: &str,
    pin: CertPin,
    alpn: &[&[u8]],
) -> Result<(TlsStream<tokio::net::TcpStream>, Presented), ReachError> {
    let provider = Arc::new(crypto::ring::default_provider());
    let verifier = Arc::new(PinVerifier {
        pin,
        provider: provider.clone(),
        presented: Mutex::new(None),
    });
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(std::io::Error::other)?
        .dangerous()
        .with_custom_certificate_verifier(verifier.clone())
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    let name = ServerName::try_from(host.to_owned()).map_err(std::io::Error::other)?;
    let connected = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await;
    let presented = verifier
        .presented
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take();
    match (connected, presented) {
        (Ok(tls), Some(presented)) => Ok((tls, presented)),
        (_, Some(presented)) if presented.cert != pin => Err(ReachError::WrongCertificate {
            pinned: pin,
            presented: Box::new(presented),
        }),
        (Err(e), _) => Err(ReachError::Io(e)),
        (Ok(_), None) => Err(ReachError::Io(std::io::Error::other(
            "the TLS handshake ended without a certificate",
        ))),
    }
}
