//! CORS: only the extension's own origins and the sink's own page may call the sink
//! from a browser. An allowed Origin is echoed back; there is never a wildcard.

use super::handler::Reply;
use http_body_util::BodyExt;
use unobserved_installer::ids::CHROMIUM_ID;

/// The Chromium extension origin. Firefox extension pages have per-profile random
/// origins, and with host permission they are not subject to CORS at all.
pub fn extension_origins() -> Vec<String> {
    vec![format!("chrome-extension://{CHROMIUM_ID}")]
}

pub struct Cors {
    allowed: Vec<String>,
}

impl Cors {
    pub fn new(mut extension_origins: Vec<String>, own_origin: String) -> Cors {
        extension_origins.push(own_origin);
        Cors {
            allowed: extension_origins,
        }
    }

    /// The origin to echo, when the request carries an allowed one.
    pub fn allow(&self, origin: Option<&str>) -> Option<String> {
        let origin = origin?;
        self.allowed
            .iter()
            .any(|a| a == origin)
            .then(|| origin.to_owned())
    }
}

pub fn preflight(origin: &str) -> Reply {
    hyper::Response::builder()
        .status(204)
        .header("Access-Control-Allow-Origin", origin)
        .header("Access-Control-Allow-Methods", "GET, PUT, POST")
        .header("Access-Control-Allow-Headers", "Content-Type")
        .header("Access-Control-Max-Age", "600")
        .header("Vary", "Origin")
        .body(http_body_util::Empty::new().boxed())
        .expect("static headers are valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_listed_origins_are_echoed() {
        let c = Cors::new(extension_origins(), "http://127.0.0.1:5000".into());
        assert_eq!(
            c.allow(Some("chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm"))
                .as_deref(),
            Some("chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm")
        );
        assert_eq!(
            c.allow(Some("http://127.0.0.1:5000")).as_deref(),
            Some("http://127.0.0.1:5000")
        );
        assert_eq!(c.allow(Some("https://evil.example")), None);
        assert_eq!(
            c.allow(Some("http://127.0.0.1:5001")),
            None,
            "another local port is another origin"
        );
        assert_eq!(c.allow(Some("*")), None);
        assert_eq!(c.allow(None), None);
    }
}
