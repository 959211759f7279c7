//! The extension's own ids. The Chromium id follows from the `"key"` in
//! extension/manifest.json; the gecko id is set in `browser_specific_settings`.

pub const CHROMIUM_ID: &str = "ofhblkgjlepfiadjplffojmacooicfhm";
pub const GECKO_ID: &str = "unobserved@unobserved.org";
/// The native messaging host name the extension connects to.
pub const HOST_NAME: &str = "org.unobserved.host";

/// The manifest's file name in a browser's manifest folder.
pub fn manifest_file() -> String {
    format!("{HOST_NAME}.json")
}

/// Our key under a browser's `...\NativeMessagingHosts` registry key.
pub fn registry_key(browser_key: &str) -> String {
    format!(r"{browser_key}\{HOST_NAME}")
}

/// Gecko ids are emails or `{uuid}`; Chromium ids are 32 letters a-p.
/// Firefox add-on ids: `name@domain` (letters, digits, `.`, `_`, `-`, `+` on either
/// side of one `@`) or a `{uuid}`. Anything else, such as `evil"@x`, is refused before
/// it can reach a manifest or allowed-ids.json.
pub fn is_gecko_id(id: &str) -> bool {
    let plain = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-+".contains(&b))
    };
    let email_like = matches!(id.split_once('@'), Some((name, domain)) if plain(name) && plain(domain) && !domain.contains('@'));
    let uuid_like = id.len() == 38
        && id.starts_with('{')
        && id.ends_with('}')
        && id[1..37].bytes().enumerate().all(|(i, b)| {
            if [8, 13, 18, 23].contains(&i) {
                b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        });
    id.len() <= 80 && (email_like || uuid_like)
}

pub fn is_chromium_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| (b'a'..=b'p').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gecko_ids_are_name_at_domain_or_a_braced_uuid() {
        for ok in [
            "unobserved@unobserved.dev",
            "a.b-c_d+e@x",
            "{e4a8a97b-f2ed-450b-b12d-ee082ba24781}",
        ] {
            assert!(is_gecko_id(ok), "{ok}");
        }
        for bad in [
            "evil\"@x",
            "@x",
            "x@",
            "a@b@c",
            "no-at-sign",
            "{not-a-uuid}",
            "{e4a8a97b-f2ed-450b-b12d-ee082ba2478}",
            "a b@x",
            "x@y\n",
        ] {
            assert!(!is_gecko_id(bad), "{bad:?}");
        }
    }
}
