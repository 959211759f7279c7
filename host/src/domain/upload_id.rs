//! An upload id: the name the page gives one upload (or one encrypted file, or one
//! download) so the host can find what its sink received under it. The charset and
//! length are the run id's: they appear in URLs and log lines unescaped.

use serde::{Deserialize, Serialize};

pub const MAX_LEN: usize = 64;

#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(try_from = "String", into = "String")]
#[schemars(with = "String")]
pub struct UploadId(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("upload id must be 1-{MAX_LEN} letters, digits, '-' or '_'")]
pub struct BadUploadId;

fn valid(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl TryFrom<String> for UploadId {
    type Error = BadUploadId;
    fn try_from(id: String) -> Result<UploadId, BadUploadId> {
        if valid(&id) {
            Ok(UploadId(id))
        } else {
            Err(BadUploadId)
        }
    }
}

impl std::str::FromStr for UploadId {
    type Err = BadUploadId;
    fn from_str(id: &str) -> Result<UploadId, BadUploadId> {
        UploadId::try_from(id.to_owned())
    }
}

impl From<UploadId> for String {
    fn from(id: UploadId) -> String {
        id.0
    }
}

impl std::fmt::Display for UploadId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl UploadId {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id of stream `index` of a parallel upload named `self`: each stream is its
    /// own upload to the sink. The page derives it the same way (`lib/upload-id.js`,
    /// both driven by tests/fixtures/upload-ids.json). None when it would be too long.
    pub fn stream(&self, index: u64) -> Option<UploadId> {
        format!("{}-s{index}", self.0).parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn fixture() -> Value {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/upload-ids.json"
        ))
        .unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn ids_are_checked_as_the_page_checks_them() {
        let f = fixture();
        for id in f["valid"].as_array().unwrap() {
            let id = id.as_str().unwrap();
            assert!(id.parse::<UploadId>().is_ok(), "{id:?}");
        }
        for id in f["invalid"].as_array().unwrap() {
            let id = id.as_str().unwrap();
            assert_eq!(id.parse::<UploadId>(), Err(BadUploadId), "{id:?}");
        }
        assert!("a".repeat(MAX_LEN).parse::<UploadId>().is_ok());
        assert!("a".repeat(MAX_LEN + 1).parse::<UploadId>().is_err());
    }

    #[test]
    fn stream_ids_are_derived_as_the_page_derives_them() {
        for case in fixture()["streams"].as_array().unwrap() {
            let id: UploadId = case["id"].as_str().unwrap().parse().unwrap();
            let got = id.stream(case["index"].as_u64().unwrap());
            assert_eq!(
                got.as_ref().map(UploadId::as_str),
                case["stream"].as_str(),
                "{case}"
            );
        }
    }

    #[test]
    fn a_bad_id_in_json_is_refused_as_it_is_read() {
        assert!(serde_json::from_str::<UploadId>("\"a/b\"").is_err());
        assert_eq!(
            serde_json::from_str::<UploadId>("\"u-1\"")
                .unwrap()
                .as_str(),
            "u-1"
        );
    }
}
