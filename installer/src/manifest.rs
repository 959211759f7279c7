//! Fills in the host manifest templates from `manifests/`.

use crate::ids::{is_chromium_id, is_gecko_id, CHROMIUM_ID, GECKO_ID};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

const CHROMIUM_TEMPLATE: &str = include_str!("../../manifests/chromium.json");
const FIREFOX_TEMPLATE: &str = include_str!("../../manifests/firefox.json");

/// The two manifest dialects: Chromium lists origins, Firefox lists add-on ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Chromium,
    Firefox,
}

impl Family {
    /// Which family's manifests an extension id belongs in: Chromium ids are 32 letters
    /// a-p, Firefox ids `name@domain` or a `{uuid}`; None for anything else.
    pub fn of_id(id: &str) -> Option<Family> {
        if is_chromium_id(id) {
            Some(Family::Chromium)
        } else if is_gecko_id(id) {
            Some(Family::Firefox)
        } else {
            None
        }
    }

    /// The extension's own id in this family's browsers.
    pub fn own_id(self) -> &'static str {
        match self {
            Family::Chromium => CHROMIUM_ID,
            Family::Firefox => GECKO_ID,
        }
    }
}

/// The manifest text for `family`, allowing the built-in id plus `extra_ids` of that family.
pub fn render(family: Family, host_path: &Path, extra_ids: &[String]) -> String {
    let (template, key) = match family {
        Family::Chromium => (CHROMIUM_TEMPLATE, "allowed_origins"),
        Family::Firefox => (FIREFOX_TEMPLATE, "allowed_extensions"),
    };
    let mut ids = vec![family.own_id().to_owned()];
    for id in extra_ids {
        if Family::of_id(id) == Some(family) && !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    let mut doc: Value = serde_json::from_str(template).expect("template is JSON");
    doc["path"] = Value::String(host_path.to_string_lossy().into_owned());
    doc[key] = match family {
        Family::Chromium => ids
            .iter()
            .map(|id| Value::String(format!("chrome-extension://{id}/")))
            .collect(),
        Family::Firefox => ids.into_iter().map(Value::String).collect(),
    };
    serde_json::to_string_pretty(&doc).expect("json") + "\n"
}

/// The ids a manifest allows, in bare form (no `chrome-extension://`).
pub fn allowed_ids(doc: &Value) -> Vec<String> {
    let list = doc
        .get("allowed_origins")
        .or_else(|| doc.get("allowed_extensions"));
    list.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|s| {
                    s.trim_start_matches("chrome-extension://")
                        .trim_end_matches('/')
                        .to_owned()
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromium_manifest_lists_origins() {
        let text = render(
            Family::Chromium,
            Path::new("/opt/u/unobserved"),
            &["abcdefghijklmnopabcdefghijklmnop".into(), "x@y".into()],
        );
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["name"], "org.unobserved.host");
        assert_eq!(doc["type"], "stdio");
        assert_eq!(doc["path"], "/opt/u/unobserved");
        assert_eq!(
            doc["allowed_origins"],
            serde_json::json!([
                "chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm/",
                "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"
            ])
        );
        assert_eq!(
            allowed_ids(&doc),
            [
                "ofhblkgjlepfiadjplffojmacooicfhm",
                "abcdefghijklmnopabcdefghijklmnop"
            ]
        );
    }

    #[test]
    fn firefox_manifest_lists_extension_ids() {
        let doc: Value = serde_json::from_str(&render(
            Family::Firefox,
            Path::new("/u"),
            &["{e4a8a97b-f2ed-450b-b12d-ee082ba24781}".into()],
        ))
        .unwrap();
        assert_eq!(
            doc["allowed_extensions"],
            serde_json::json!([
                "unobserved@unobserved.org",
                "{e4a8a97b-f2ed-450b-b12d-ee082ba24781}"
            ])
        );
        assert!(doc.get("allowed_origins").is_none());
    }

    /// One rule for which family's manifests an id goes in, for install's
    /// --extension-id check and for rendering.
    #[test]
    fn an_id_belongs_to_one_family_or_none() {
        assert_eq!(Family::of_id(CHROMIUM_ID), Some(Family::Chromium));
        assert_eq!(Family::of_id(GECKO_ID), Some(Family::Firefox));
        assert_eq!(
            Family::of_id("{e4a8a97b-f2ed-450b-b12d-ee082ba24781}"),
            Some(Family::Firefox)
        );
        for id in ["", "ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP", "evil\"@x", "abcq"] {
            assert_eq!(Family::of_id(id), None, "{id}");
        }
        for family in [Family::Chromium, Family::Firefox] {
            assert_eq!(Family::of_id(family.own_id()), Some(family));
        }
    }
}
