//! CORS and the foreign-origin check: only the extension's own origins and the sink's
//! own pages may call the sink from a browser. An allowed Origin is echoed back; there
//! is never a wildcard.

use super::headers::{at_most_one, Repeated};
use super::hosts::Hosts;
use super::reply::{empty, Reply, EXPOSED_HEADERS};
use hyper::header::{HeaderMap, HeaderValue, ORIGIN};
use unobserved_installer::ids::CHROMIUM_ID;

/// The Chromium extension origin. Firefox's cannot be listed (`FirefoxPages`).
pub fn extension_origins() -> Vec<String> {
    vec![format!("chrome-extension://{CHROMIUM_ID}")]
}

/// Whether a Firefox extension page may call the sink. Its origin is
/// `moz-extension://<UUID>`, a UUID Firefox draws at random for each install, so it can
/// neither be listed in advance nor derived from the extension's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirefoxPages {
    /// Never: the sinks the host starts serve the benchmark page themselves, so no
    /// extension page calls them.
    Refused,
    /// On the token-guarded routes only: the standalone `unobserved sink`, which the
    /// extension's own page calls when the sink is remote (SECURITY.md says why that
    /// is safe).
    TokenRoutes,
}

/// Who is calling, by the request's Origin (or, without one, Sec-Fetch-Site).
#[derive(Debug, PartialEq, Eq)]
pub enum Caller {
    /// An allowed origin, echoed in the CORS headers.
    Listed(String),
    /// Served, without CORS headers: no Origin (a client other than a browser, or a
    /// same-origin GET), or a Firefox extension page where `FirefoxPages` lets it in.
    Unlisted,
    /// A page of another origin: refused before the token is looked at.
    Foreign,
}

pub struct Cors {
    extension_origins: Vec<String>,
    firefox: FirefoxPages,
}

impl Cors {
    pub fn new(extension_origins: Vec<String>, firefox: FirefoxPages) -> Cors {
        Cors {
            extension_origins,
            firefox,
        }
    }

    /// Who sent a request with these headers; `token_route` when it is for one of the
    /// token-guarded routes.
    pub fn caller(
        &self,
        hosts: &Hosts,
        headers: &HeaderMap,
        token_route: bool,
    ) -> Result<Caller, Repeated> {
        // An Origin that is not text is no origin that is listed.
        let origin = at_most_one(headers, &ORIGIN)?.map(|o| o.to_str().unwrap_or(""));
        let cross_site = headers
            .get("sec-fetch-site")
            .is_some_and(|v| v.as_bytes() == b"cross-site");
        Ok(self.judge(hosts, origin, cross_site, token_route))
    }

    /// The same from the header values alone. The sink's own pages are the origins
    /// `hosts` owns.
    pub fn judge(
        &self,
        hosts: &Hosts,
        origin: Option<&str>,
        cross_site: bool,
        token_route: bool,
    ) -> Caller {
        let firefox = self.firefox == FirefoxPages::TokenRoutes && token_route;
        match origin {
            None if cross_site => Caller::Foreign,
            None => Caller::Unlisted,
            Some(o) if hosts.owns_origin(o) || self.extension_origins.iter().any(|e| e == o) => {
                Caller::Listed(o.to_owned())
            }
            Some(o) if firefox && is_firefox_extension(o) => Caller::Unlisted,
            Some(_) => Caller::Foreign,
        }
    }
}

/// `moz-extension://` and a UUID (hex digits, 8-4-4-4-12), as Firefox writes it.
fn is_firefox_extension(origin: &str) -> bool {
    let Some(uuid) = origin.strip_prefix("moz-extension://") else {
        return false;
    };
    uuid.len() == 36
        && uuid.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

pub fn preflight(origin: &str) -> Reply {
    hyper::Response::builder()
        .status(204)
        .header("Access-Control-Allow-Origin", origin)
        .header(
            "Access-Control-Allow-Methods",
            "GET, PUT, POST, PATCH, HEAD",
        )
        // tus's own headers, for a workload module's tus client (`module_upload.rs`).
        .header(
            "Access-Control-Allow-Headers",
            "Content-Type, Tus-Resumable, Upload-Length, Upload-Offset, Upload-Metadata",
        )
        .header("Access-Control-Max-Age", "600")
        .header("Vary", "Origin")
        .body(empty())
        .expect("static headers are valid")
}

/// What a reply to a listed origin carries so that its page may read it.
pub fn expose(reply: &mut Reply, origin: &str) {
    let h = reply.headers_mut();
    h.insert(
        "access-control-allow-origin",
        origin.parse().expect("the origin came from a header"),
    );
    h.insert("vary", HeaderValue::from_static("Origin"));
    h.insert(
        "access-control-expose-headers",
        HeaderValue::from_static(EXPOSED_HEADERS),
    );
    // Its Resource Timing marks too (requestStart, responseStart): the upload's phases.
    h.insert(
        "timing-allow-origin",
        origin.parse().expect("the origin came from a header"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::hosts::Scheme;

    const FIREFOX: &str = "moz-extension://0b8f0f4e-2d3c-4a5b-9c6d-7e8f9a0b1c2d";

    fn hosts() -> Hosts {
        Hosts::new("127.0.0.1:5000".parse().unwrap(), Scheme::Http, &[], &[])
    }

    fn caller(cors: &Cors, origins: &[&str], token_route: bool) -> Result<Caller, Repeated> {
        let mut h = HeaderMap::new();
        for o in origins {
            h.append(ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        cors.caller(&hosts(), &h, token_route)
    }

    fn listed(o: &str) -> Result<Caller, Repeated> {
        Ok(Caller::Listed(o.to_owned()))
    }

    #[test]
    fn only_listed_origins_and_the_sinks_own_names_are_echoed() {
        let c = Cors::new(extension_origins(), FirefoxPages::Refused);
        let chromium = "chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm";
        for ok in [chromium, "http://127.0.0.1:5000", "http://localhost:5000"] {
            assert_eq!(caller(&c, &[ok], true), listed(ok), "{ok}");
        }
        for bad in [
            "https://evil.example",
            "http://127.0.0.1:5001",
            "*",
            "null",
            FIREFOX,
        ] {
            assert_eq!(caller(&c, &[bad], true), Ok(Caller::Foreign), "{bad}");
        }
        assert_eq!(caller(&c, &[], true), Ok(Caller::Unlisted));
        assert_eq!(
            caller(&c, &[chromium, chromium], true),
            Err(Repeated(ORIGIN))
        );
    }

    #[test]
    fn a_firefox_page_is_let_in_only_on_token_routes_of_a_sink_that_allows_it() {
        let c = Cors::new(extension_origins(), FirefoxPages::TokenRoutes);
        assert_eq!(caller(&c, &[FIREFOX], true), Ok(Caller::Unlisted));
        assert_eq!(caller(&c, &[FIREFOX], false), Ok(Caller::Foreign));
        for malformed in [
            "moz-extension://",
            "moz-extension://evil.example",
            "moz-extension://0b8f0f4e-2d3c-4a5b-9c6d-7e8f9a0b1c2g",
            &format!("{FIREFOX}/"),
        ] {
            assert_eq!(
                caller(&c, &[malformed], true),
                Ok(Caller::Foreign),
                "{malformed}"
            );
        }
    }
}
