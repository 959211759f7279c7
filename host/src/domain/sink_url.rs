//! A sink elsewhere (`run --sink-url`): the URL `unobserved sink` printed. An https://
//! one pins the sink's certificate in its fragment (`#sha256=<hex>`, `domain::pin`),
//! which a browser never sends: the host accepts that certificate and no other. A TLS
//! sink that offers only HTTP/1.1 (`sink --transport h1-tls`) says so in the fragment
//! too (`#sha256=<hex>&transport=h1-tls`); without it, a TLS sink offers HTTP/2.

use crate::domain::arm::Transport;
use crate::domain::pin::CertPin;
use serde::{Deserialize, Serialize};

/// The path every upload URL starts with, before the session's token.
pub const UPLOAD_PREFIX: &str = "/upload/";

/// The fragment's second key, after the pin: `&transport=h1-tls` (or `h2`, the default).
pub const TRANSPORT_KEY: &str = "transport=";

/// http(s)://HOST:PORT/upload/TOKEN, read by the WHATWG URL Standard (the `url` crate)
/// as the browser's `new URL()` reads it, so the host and the extension agree on every
/// URL (tests/fixtures/sink-urls.json), and for https the pinned certificate. The job hands it to the
/// extension as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct SinkUrl {
    /// Without its fragment, which holds the pin and is never requested.
    url: url::Url,
    /// Present exactly when the scheme is https.
    pin: Option<CertPin>,
    /// What the sink offers: h1 in the clear, h2 or h1-tls over TLS.
    transport: Transport,
}

impl std::str::FromStr for SinkUrl {
    type Err = String;

    fn from_str(text: &str) -> Result<SinkUrl, String> {
        // The fragment as written: an empty one ("…#") is a fragment too.
        let (text, fragment) = match text.split_once('#') {
            Some((t, f)) => (t, Some(f)),
            None => (text, None),
        };
        let url = url::Url::parse(text).map_err(|_| wrong())?;
        let tls = url.scheme() == "https";
        let web = tls || url.scheme() == "http";
        let host = url.host_str().is_some_and(|h| !h.is_empty());
        if !(web && host && url.path().contains(UPLOAD_PREFIX)) {
            return Err(wrong());
        }
        let (pin, transport) = match (tls, fragment) {
            (true, Some(f)) => pinned_fragment(f)?,
            (true, None) => return Err(format!(
                "an https:// sink URL pins the sink's certificate: end it with #sha256=<the certificate's SHA-256>, as `unobserved sink --tls` printed it (like https://HOST:PORT{UPLOAD_PREFIX}TOKEN#sha256=…)"
            )),
            (false, None) => (None, Transport::H1),
            (false, Some(_)) => {
                return Err("only an https:// sink URL carries a fragment (its certificate's #sha256=…); an http:// one has none".into())
            }
        };
        Ok(SinkUrl {
            url,
            pin,
            transport,
        })
    }
}

/// What an https:// sink URL carries after its `#`: the pin, and `&transport=h1-tls`
/// for a sink that offers only HTTP/1.1 (h2, what a TLS sink offers unless it says
/// otherwise, goes unsaid).
pub fn fragment(pin: CertPin, transport: Transport) -> String {
    match transport {
        Transport::H1Tls => format!("{}&{TRANSPORT_KEY}{transport}", pin.fragment()),
        _ => pin.fragment(),
    }
}

/// An https:// URL's fragment: `sha256=<hex>`, then optionally `&transport=h1-tls` (or
/// `h2`, which is what a TLS sink offers unless it says otherwise).
fn pinned_fragment(fragment: &str) -> Result<(Option<CertPin>, Transport), String> {
    let (pin, rest) = match fragment.split_once('&') {
        Some((pin, rest)) => (pin, Some(rest)),
        None => (fragment, None),
    };
    let pin = CertPin::from_fragment(pin).map_err(|e| e.to_string())?;
    let transport = match rest.map(|r| r.strip_prefix(TRANSPORT_KEY)) {
        None => Transport::H2,
        Some(Some("h1-tls")) => Transport::H1Tls,
        Some(Some("h2")) => Transport::H2,
        Some(_) => return Err(format!(
            "after the pin, an https:// sink URL's fragment may only say {TRANSPORT_KEY}h1-tls (a sink that offers only HTTP/1.1 over TLS) or {TRANSPORT_KEY}h2, as `unobserved sink` printed it"
        )),
    };
    Ok((Some(pin), transport))
}

fn wrong() -> String {
    format!("must be the URL `unobserved sink` printed, like http://HOST:PORT{UPLOAD_PREFIX}TOKEN or https://HOST:PORT{UPLOAD_PREFIX}TOKEN#sha256=…")
}

impl SinkUrl {
    pub fn is_tls(&self) -> bool {
        self.pin.is_some()
    }

    /// The certificate an https:// sink must present, and nothing else.
    pub fn pin(&self) -> Option<CertPin> {
        self.pin
    }

    /// What the browser's uploads travel over: the URL's. A TLS sink (`unobserved sink
    /// --tls`) offers HTTP/2 by ALPN, which every browser takes, unless its URL says
    /// `&transport=h1-tls` (`sink --transport h1-tls`: HTTP/1.1 alone).
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// The URL a browser uploads to: without the pin, which is the host's to check.
    pub fn upload_url(&self) -> String {
        self.url.as_str().to_owned()
    }

    /// The host's name as the URL gives it, brackets of an IPv6 literal removed: what a
    /// TLS client names the server by, and Firefox's certificate overrides.
    pub fn host(&self) -> &str {
        let host = self.url.host_str().unwrap_or_default();
        host.strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host)
    }

    /// Whether the URL names this machine itself: `localhost` (or a name under it) or a
    /// loopback address. Browsers hold such an origin potentially trustworthy, so an
    /// extension page reaches it over plain http:// where Firefox upgrades every other
    /// http:// request of its extension pages to https:// (`gecko_upgrades_to_https`).
    pub fn is_loopback(&self) -> bool {
        match self.url.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            // Lowercased by the parser, as the browser's.
            Some(url::Host::Domain(name)) => name == "localhost" || name.ends_with(".localhost"),
            None => false,
        }
    }

    /// Whether Firefox's extension pages would send this URL's uploads to https://
    /// instead: the default Content-Security-Policy of a Manifest V3 extension page
    /// has `upgrade-insecure-requests`, which spares only loopback. A plain sink
    /// elsewhere then gets a TLS handshake it cannot answer, and the page a
    /// NetworkError.
    pub fn gecko_upgrades_to_https(&self) -> bool {
        !self.is_tls() && !self.is_loopback()
    }

    /// The URL's port, or its scheme's when it names none.
    pub fn port(&self) -> u16 {
        self.url
            .port_or_known_default()
            .unwrap_or(if self.is_tls() { 443 } else { 80 })
    }

    /// HOST:PORT, or HOST where the port is the scheme's own (the parser drops it).
    pub fn authority(&self) -> String {
        let host = self.url.host_str().unwrap_or_default();
        match self.url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_owned(),
        }
    }

    /// "http://HOST:PORT", what the browser's host permission names.
    pub fn origin(&self) -> String {
        format!("{}://{}", self.url.scheme(), self.authority())
    }

    /// The match pattern of a browser's host permission for this sink: its scheme and
    /// host, any port (Firefox refuses a pattern that names a port, and then treats the
    /// sink as a page of another origin).
    pub fn host_permission(&self) -> String {
        format!(
            "{}://{}/*",
            self.url.scheme(),
            self.url.host_str().unwrap_or_default()
        )
    }

    /// The upload path with its query, as requested of the sink.
    pub fn path(&self) -> &str {
        &self.url[url::Position::BeforePath..url::Position::AfterQuery]
    }

    /// The token of its upload path, which its other routes want too.
    pub fn token(&self) -> &str {
        let path = self.url.path();
        path.rsplit_once(UPLOAD_PREFIX).map_or("", |(_, t)| t)
    }

    /// Where it listens, as a resolver takes it: HOST:PORT, the URL's port or its
    /// scheme's when it names none (`platform::net::resolve`).
    pub fn host_port(&self) -> String {
        // The host keeps an IPv6 literal's brackets, which "[::1]:80" wants.
        let host = self.url.host_str().unwrap_or_default();
        format!("{host}:{}", self.port())
    }
}

/// As `unobserved sink` printed it, the pin included.
impl std::fmt::Display for SinkUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.url.as_str())?;
        match self.pin {
            Some(pin) => write!(f, "#{}", fragment(pin, self.transport)),
            None => Ok(()),
        }
    }
}

impl From<SinkUrl> for String {
    fn from(url: SinkUrl) -> String {
        url.to_string()
    }
}

impl TryFrom<String> for SinkUrl {
    type Error = String;

    fn try_from(text: String) -> Result<SinkUrl, String> {
        text.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::SinkUrl;
    use crate::domain::arm::Transport;

    const PIN: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    fn url(text: &str) -> SinkUrl {
        text.parse().unwrap()
    }

    /// The shared cases: the extension's options page reads the same file
    /// (`tests/fixtures/sink-urls.json`): the same sinks, with the same transport and
    /// host permission, and the same non-sinks.
    #[test]
    fn only_a_web_url_to_an_upload_path_is_a_sink() {
        let fixture: serde_json::Value = serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/sink-urls.json"
        )))
        .unwrap();
        for good in fixture["sinks"].as_array().unwrap() {
            let text = good["url"].as_str().unwrap();
            let u = url(text);
            assert_eq!(u.transport().as_str(), good["transport"], "{text}");
            assert_eq!(u.upload_url(), good["upload_url"], "{text}");
            assert_eq!(u.host_permission(), good["host_permission"], "{text}");
        }
        for bad in fixture["not_sinks"].as_array().unwrap() {
            let text = bad.as_str().unwrap();
            assert!(text.parse::<SinkUrl>().is_err(), "{text}");
        }
        assert!(!url("http://h:1/upload/t").is_tls());
        assert!(url(&format!("https://h:1/upload/t#sha256={PIN}")).is_tls());
    }

    #[test]
    fn https_pins_a_certificate_and_http_pins_none() {
        let pinned = url(&format!("https://h:1/upload/t#sha256={PIN}"));
        assert_eq!(pinned.pin(), Some(PIN.parse().unwrap()));
        assert_eq!(pinned.transport(), Transport::H2);
        assert_eq!(pinned.upload_url(), "https://h:1/upload/t");
        assert_eq!(
            pinned.to_string(),
            format!("https://h:1/upload/t#sha256={PIN}")
        );
        for bad in [
            "https://h:1/upload/t".to_owned(),
            format!("http://h:1/upload/t#sha256={PIN}"),
            format!("https://h:1/upload/t#sha256={}", &PIN[2..]),
            format!("https://h:1/upload/t#sha1={PIN}"),
        ] {
            assert!(bad.parse::<SinkUrl>().is_err(), "{bad}");
        }
        assert_eq!(url("http://h:1/upload/t").transport(), Transport::H1);
    }

    #[test]
    fn its_parts_are_as_written() {
        let u = url("http://192.0.2.7:5000/upload/tok?kind=Blob");
        assert_eq!(u.to_string(), "http://192.0.2.7:5000/upload/tok?kind=Blob");
        assert_eq!(u.authority(), "192.0.2.7:5000");
        assert_eq!(u.origin(), "http://192.0.2.7:5000");
        assert_eq!(u.path(), "/upload/tok?kind=Blob");
        assert_eq!(u.token(), "tok");
        let v6 = url(&format!("https://[::1]:8443/upload/t#sha256={PIN}"));
        assert_eq!(v6.origin(), "https://[::1]:8443");
        assert_eq!((v6.host(), v6.port()), ("::1", 8443));
        assert_eq!(v6.host_permission(), "https://[::1]/*");
        assert_eq!(u.host_permission(), "http://192.0.2.7/*");
    }

    /// The shared cases (`gecko_upgrades_to_https`): the options page in Firefox refuses
    /// the same sinks by the same rule (extension/lib/sink-url.js).
    #[test]
    fn only_plain_http_off_loopback_is_upgraded_by_gecko() {
        let fixture: serde_json::Value = serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/sink-urls.json"
        )))
        .unwrap();
        let sinks = fixture["sinks"].as_array().unwrap();
        for sink in sinks {
            let text = sink["url"].as_str().unwrap();
            let upgraded = sink["gecko_upgrades_to_https"].as_bool();
            assert_eq!(
                Some(url(text).gecko_upgrades_to_https()),
                upgraded,
                "{text}"
            );
        }
        let spared = |s: &&serde_json::Value| s["gecko_upgrades_to_https"] == false;
        assert!(sinks.iter().filter(spared).count() >= 5, "loopback cases");
        assert!(sinks.iter().any(|s| s["gecko_upgrades_to_https"] == true));
    }

    #[test]
    fn it_resolves_with_or_without_a_port() {
        let at = |text: &str| crate::platform::net::resolve(&url(text)).unwrap();
        assert_eq!(
            at("http://127.0.0.1:5000/upload/t"),
            ["127.0.0.1:5000".parse().unwrap()]
        );
        assert_eq!(
            at(&format!("https://[::1]:8443/upload/t#sha256={PIN}")),
            ["[::1]:8443".parse().unwrap()]
        );
        assert_eq!(
            at(&format!("https://127.0.0.1/upload/t#sha256={PIN}")),
            ["127.0.0.1:443".parse().unwrap()]
        );
    }

    #[test]
    fn the_job_carries_it_as_text_pin_and_all() {
        for text in [
            "http://h:1/upload/t".to_owned(),
            format!("https://h:1/upload/t#sha256={PIN}"),
        ] {
            let u = url(&text);
            let json = serde_json::to_value(&u).unwrap();
            assert_eq!(json, text.as_str());
            assert_eq!(serde_json::from_value::<SinkUrl>(json).unwrap(), u);
        }
    }
}
