//! The extension's own ids. The Chromium id follows from the `"key"` in
//! extension/manifest.json; the gecko id is set in `browser_specific_settings`.

pub const CHROMIUM_ID: &str = "ofhblkgjlepfiadjplffojmacooicfhm";
pub const GECKO_ID: &str = "unobserved@unobserved.org";
/// The native messaging host name the extension connects to.
pub const HOST_NAME: &str = "org.unobserved.host";

/// Gecko ids are emails or `{uuid}`; Chromium ids are 32 letters a-p.
pub fn is_gecko_id(id: &str) -> bool {
    id.contains('@') || (id.starts_with('{') && id.ends_with('}'))
}

pub fn is_chromium_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| (b'a'..=b'p').contains(&b))
}
