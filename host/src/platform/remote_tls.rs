//! The certificate of `unobserved sink --tls`: self-signed, made on first use and kept
//! in the state dir (`sink-tls/`, its key owner-only), so a person trusts it in each
//! browser once and the printed URL keeps its pin from one start to the next. It is
//! made again, with a new pin, only when it does not name a host the sink is reached
//! by, or has less than a month left. The URL pins its SHA-256 (`domain::pin`).

use crate::domain::pin::CertPin;
use anyhow::{Context, Result};
use rcgen::{CertificateParams, DnType, ExtendedKeyUsagePurpose, KeyPair};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Days a new certificate is valid for: Apple's platforms refuse a TLS server
/// certificate valid for longer, even one a person trusted by hand.
const VALID_DAYS: u64 = 825;
/// A kept certificate with fewer days left than this is made again.
const RENEW_DAYS: u64 = 30;

/// The certificate, its key and its pin.
#[derive(Debug, Clone)]
pub struct SinkCert {
    pub cert_pem: String,
    pub key_pem: String,
    pub pin: CertPin,
    /// Where it is kept (None for one given with --tls-cert).
    pub path: Option<PathBuf>,
}

/// What a kept certificate was made for, beside it in `cert.json`.
#[derive(Debug, Serialize, Deserialize)]
struct Made {
    names: Vec<String>,
    /// Its last valid day, `YYYY-MM-DD`.
    not_after: chrono::NaiveDate,
}

/// How the certificate came to be, for the sink's own words on stderr.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    Kept,
    Made { replaced: bool },
    Given,
}

pub fn dir(state_dir: &Path) -> PathBuf {
    state_dir.join("sink-tls")
}

/// The pin of the first certificate of a PEM chain: the one the sink presents.
pub fn pin_of_pem(cert_pem: &[u8]) -> Result<CertPin> {
    let der = rustls_pemfile::certs(&mut &cert_pem[..])
        .next()
        .context("no certificate in the PEM")??;
    let digest = ring::digest::digest(&ring::digest::SHA256, der.as_ref());
    Ok(CertPin::of_digest(digest.as_ref()).expect("SHA-256 is 32 bytes"))
}

/// The certificate given with `--tls-cert/--tls-key`.
pub fn given(cert: &Path, key: &Path) -> Result<SinkCert> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))
    };
    let cert_pem = read(cert)?;
    let pin = pin_of_pem(cert_pem.as_bytes())
        .with_context(|| format!("{} holds no certificate", cert.display()))?;
    Ok(SinkCert {
        cert_pem,
        key_pem: read(key)?,
        pin,
        path: Some(cert.to_owned()),
    })
}

/// The kept certificate when it names every one of `names` and is not about to expire;
/// else a new one for them (and for localhost), kept in its place.
pub fn kept_for(state_dir: &Path, names: &[String]) -> Result<(SinkCert, Origin)> {
    let dir = dir(state_dir);
    let (cert_path, key_path, made_path) = (
        dir.join("cert.pem"),
        dir.join("key.pem"),
        dir.join("cert.json"),
    );
    let kept = read_kept(&cert_path, &key_path, &made_path);
    let renew_by = chrono::Utc::now().date_naive() + chrono::Days::new(RENEW_DAYS);
    let replaced = match kept {
        Some((cert, made))
            if made.not_after > renew_by && names.iter().all(|n| made.names.contains(n)) =>
        {
            return Ok((cert, Origin::Kept));
        }
        Some(_) => true,
        None => false,
    };
    let mut all: Vec<String> = names.to_vec();
    for local in ["localhost", "127.0.0.1"] {
        if !all.iter().any(|n| n == local) {
            all.push(local.to_owned());
        }
    }
    let (cert_pem, key_pem, not_after) = generate(&all)?;
    crate::platform::state::ensure_private_dir(state_dir)?;
    crate::platform::state::ensure_private_dir(&dir)?;
    write_private(&key_path, &key_pem)?;
    write_private(&cert_path, &cert_pem)?;
    let made = Made {
        names: all,
        not_after,
    };
    write_private(&made_path, &serde_json::to_string_pretty(&made)?)?;
    let pin = pin_of_pem(cert_pem.as_bytes())?;
    let cert = SinkCert {
        cert_pem,
        key_pem,
        pin,
        path: Some(cert_path),
    };
    Ok((cert, Origin::Made { replaced }))
}

fn read_kept(cert: &Path, key: &Path, made: &Path) -> Option<(SinkCert, Made)> {
    let read =
        |p: &Path| std::io::read_to_string(crate::platform::state::open_private_read(p).ok()?).ok();
    let cert_pem = read(cert)?;
    let made: Made = serde_json::from_str(&read(made)?).ok()?;
    let pin = pin_of_pem(cert_pem.as_bytes()).ok()?;
    let sink_cert = SinkCert {
        cert_pem,
        key_pem: read(key)?,
        pin,
        path: Some(cert.to_owned()),
    };
    Some((sink_cert, made))
}

/// A self-signed server certificate for `names` (addresses become IP names), its key,
/// and its last valid day.
fn generate(names: &[String]) -> Result<(String, String, chrono::NaiveDate)> {
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::new(names.to_vec())?;
    params
        .distinguished_name
        .push(DnType::CommonName, "unobserved sink");
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    crate::platform::local_tls::set_validity(&mut params, 1, VALID_DAYS);
    let cert = params.self_signed(&key)?;
    let not_after = chrono::Utc::now().date_naive() + chrono::Days::new(VALID_DAYS);
    Ok((cert.pem(), key.serialize_pem(), not_after))
}

/// Replaces `path` with `contents`, readable by its owner only; a symbolic link in
/// its place is replaced, never followed.
fn write_private(path: &Path, contents: &str) -> Result<()> {
    let tmp = path.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut file = opts
        .open(&tmp)
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    std::io::Write::write_all(&mut file, contents.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_certificate_is_kept_until_a_name_is_missing() {
        let state = tempfile::tempdir().unwrap();
        let names = vec!["192.0.2.7".to_owned()];
        let (first, origin) = kept_for(state.path(), &names).unwrap();
        assert_eq!(origin, Origin::Made { replaced: false });
        let (again, origin) = kept_for(state.path(), &names).unwrap();
        assert_eq!(origin, Origin::Kept);
        assert_eq!(again.pin, first.pin, "the URL keeps its pin across starts");
        assert_eq!(pin_of_pem(first.cert_pem.as_bytes()).unwrap(), first.pin);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir(state.path()).join("key.pem"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let more = vec!["192.0.2.7".to_owned(), "sink.lan".to_owned()];
        let (renewed, origin) = kept_for(state.path(), &more).unwrap();
        assert_eq!(origin, Origin::Made { replaced: true });
        assert_ne!(renewed.pin, first.pin);
        let der = rustls_pemfile::certs(&mut renewed.cert_pem.as_bytes())
            .next()
            .unwrap()
            .unwrap();
        let hay = der.as_ref();
        assert!(hay.windows(4).any(|w| w == [192, 0, 2, 7]), "an IP name");
        assert!(hay.windows(8).any(|w| w == b"sink.lan"));
    }
}
