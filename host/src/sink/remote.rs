//! A sink elsewhere (`run --sink-url`): the URL `unobserved sink` printed.

use super::routes::UPLOAD_PREFIX;
use hyper::http::uri::Scheme;
use hyper::Uri;
use serde::{Deserialize, Serialize};
use std::net::{SocketAddr, ToSocketAddrs};

/// http(s)://HOST:PORT/upload/TOKEN, parsed once by hyper's `Uri` (already a dependency,
/// so no `url` crate). The job hands it to the extension as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct SinkUrl(Uri);

impl std::str::FromStr for SinkUrl {
    type Err = String;

    fn from_str(text: &str) -> Result<SinkUrl, String> {
        let uri: Uri = text.parse().map_err(|_| wrong())?;
        let web = uri.scheme() == Some(&Scheme::HTTP) || uri.scheme() == Some(&Scheme::HTTPS);
        if web && uri.host().is_some() && uri.path().contains(UPLOAD_PREFIX) {
            Ok(SinkUrl(uri))
        } else {
            Err(wrong())
        }
    }
}

fn wrong() -> String {
    format!("must be the URL `unobserved sink` printed, like http://HOST:PORT{UPLOAD_PREFIX}TOKEN")
}

impl SinkUrl {
    pub fn is_tls(&self) -> bool {
        self.0.scheme() == Some(&Scheme::HTTPS)
    }

    /// Why a run on this sink could not be judged, if it could not: the host claims a
    /// remote sink's records over plain HTTP only, having no trust to check a remote
    /// certificate by. Refused before a run starts, so no run is stored unjudged.
    pub fn unclaimable(&self) -> Option<&'static str> {
        self.is_tls().then_some(
            "a remote sink is judged from its own records, which this host claims over plain HTTP only: serve it with `unobserved sink` without --tls-cert and give its http:// URL",
        )
    }

    /// HOST:PORT as given.
    pub fn authority(&self) -> &str {
        self.0.authority().map_or("", |a| a.as_str())
    }

    /// "http://HOST:PORT", what the browser's host permission names.
    pub fn origin(&self) -> String {
        format!(
            "{}://{}",
            self.0.scheme_str().unwrap_or("http"),
            self.authority()
        )
    }

    /// The upload path with its query, as requested of the sink.
    pub fn path(&self) -> &str {
        self.0.path_and_query().map_or("/", |p| p.as_str())
    }

    /// The token of its upload path, which its other routes want too.
    pub fn token(&self) -> &str {
        let path = self.0.path();
        path.rsplit_once(UPLOAD_PREFIX).map_or("", |(_, t)| t)
    }

    /// Where it listens: the URL's port, or its scheme's when it names none.
    pub fn socket_addrs(&self) -> std::io::Result<Vec<SocketAddr>> {
        let port = self
            .0
            .port_u16()
            .unwrap_or(if self.is_tls() { 443 } else { 80 });
        // The host keeps an IPv6 literal's brackets, which "[::1]:80" wants.
        let host = self.0.host().unwrap_or_default();
        Ok(format!("{host}:{port}").to_socket_addrs()?.collect())
    }
}

impl std::fmt::Display for SinkUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
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

    fn url(text: &str) -> SinkUrl {
        text.parse().unwrap()
    }

    /// The shared cases: the extension's options page reads the same file.
    #[test]
    fn only_a_web_url_to_an_upload_path_is_a_sink() {
        let fixture: serde_json::Value = serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/sink-urls.json"
        )))
        .unwrap();
        let cases =
            |key: &str| -> Vec<String> { serde_json::from_value(fixture[key].clone()).unwrap() };
        for good in cases("sinks") {
            assert!(good.parse::<SinkUrl>().is_ok(), "{good}");
        }
        for bad in cases("not_sinks") {
            assert!(bad.parse::<SinkUrl>().is_err(), "{bad}");
        }
        assert!(!url("http://h:1/upload/t").is_tls());
        assert!(url("https://h:1/upload/t").is_tls());
    }

    #[test]
    fn its_parts_are_as_written() {
        let u = url("http://192.0.2.7:5000/upload/tok?kind=Blob");
        assert_eq!(u.to_string(), "http://192.0.2.7:5000/upload/tok?kind=Blob");
        assert_eq!(u.authority(), "192.0.2.7:5000");
        assert_eq!(u.origin(), "http://192.0.2.7:5000");
        assert_eq!(u.path(), "/upload/tok?kind=Blob");
        assert_eq!(u.token(), "tok");
        assert_eq!(
            url("https://[::1]:8443/upload/t").origin(),
            "https://[::1]:8443"
        );
    }

    #[test]
    fn it_resolves_with_or_without_a_port() {
        let at = |text: &str| url(text).socket_addrs().unwrap();
        assert_eq!(
            at("http://127.0.0.1:5000/upload/t"),
            ["127.0.0.1:5000".parse().unwrap()]
        );
        assert_eq!(
            at("https://[::1]:8443/upload/t"),
            ["[::1]:8443".parse().unwrap()]
        );
        assert_eq!(
            at("https://127.0.0.1/upload/t"),
            ["127.0.0.1:443".parse().unwrap()]
        );
    }

    #[test]
    fn the_job_carries_it_as_text() {
        let u = url("http://h:1/upload/t");
        let json = serde_json::to_value(&u).unwrap();
        assert_eq!(json, "http://h:1/upload/t");
        assert_eq!(serde_json::from_value::<SinkUrl>(json).unwrap(), u);
    }
}
