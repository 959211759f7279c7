//! What the sink makes of a request: the first line is the URL, the second an Origin
//! header, the rest a presented token. Routing, download query parsing, CORS and token
//! checks must never panic, and no route may escape the served folders.
#![no_main]
use libfuzzer_sys::fuzz_target;
use unobserved::sink::{cors, download, hosts, routes, token};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.splitn(3, '\n');
    let url = lines.next().unwrap_or("");
    let origin = lines.next();
    let presented = lines.next().unwrap_or("");
    if let routes::Route::Asset(path) = routes::route(url) {
        assert!(!path.contains(".."), "asset path escaped: {path}");
        assert!(path.starts_with("bench/") || path.starts_with("lib/"));
    }
    let _ = download::parse_request(url, 1 << 30);
    let own = hosts::Hosts::new("127.0.0.1:1".parse().unwrap(), hosts::Scheme::Http, &[], &[]);
    let c = cors::Cors::new(cors::extension_origins(), cors::FirefoxPages::TokenRoutes);
    if let cors::Caller::Listed(o) = c.judge(&own, origin, false, true) {
        let o = o.to_lowercase();
        assert!(
            o == "chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm"
                || ["127.0.0.1", "localhost", "[::1]"].iter().any(|h| o == format!("http://{h}:1"))
        );
    }
    assert!(!token::matches("0123456789abcdef0123456789abcdef", presented) || presented == "0123456789abcdef0123456789abcdef");
});
