//! Whether an arm's bytes arrived as sent: the worst thing that happened to any of its
//! uploads, typed, so reports and the popup branch on a kind and never on words.

use crate::model::{Sample, SampleStatus};
use serde::Serialize;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Integrity {
    /// Every upload arrived whole: length and SHA-256 match what the page sent.
    Intact,
    /// Bytes arrived, but not the ones sent. `head` is the start of what arrived.
    Corrupted {
        bytes_received: u64,
        head: String,
    },
    /// fetch() rejected the body (e.g. a stream body over HTTP/1.1 in Chromium).
    Unsupported {
        error: String,
    },
    Aborted {
        error: String,
    },
    Error {
        error: String,
    },
    NoSamples,
}

/// The text Firefox uploads in place of a `ReadableStream` body.
const STRINGIFIED_STREAM: &str = "[object ReadableStream]";

impl Integrity {
    pub fn of(samples: &[&Sample]) -> Integrity {
        let worst = |status| samples.iter().find(|s| s.status == status);
        if let Some(s) = worst(SampleStatus::Corrupted) {
            let head = s.head.as_deref().unwrap_or("").chars().take(40).collect();
            return Integrity::Corrupted {
                bytes_received: s.bytes_received.unwrap_or(0),
                head,
            };
        }
        let error = |s: &&Sample| s.error.clone().unwrap_or_else(|| "no detail".into());
        if let Some(s) = worst(SampleStatus::Unsupported) {
            return Integrity::Unsupported { error: error(s) };
        }
        if let Some(s) = worst(SampleStatus::Aborted) {
            return Integrity::Aborted { error: error(s) };
        }
        if let Some(s) = worst(SampleStatus::Error) {
            return Integrity::Error { error: error(s) };
        }
        if samples.is_empty() {
            Integrity::NoSamples
        } else {
            Integrity::Intact
        }
    }

    pub fn is_intact(&self) -> bool {
        *self == Integrity::Intact
    }

    /// One word for a table cell: "intact", "corrupted", "unsupported", …
    pub fn word(&self) -> &'static str {
        match self {
            Integrity::Intact => "intact",
            Integrity::Corrupted { .. } => "corrupted",
            Integrity::Unsupported { .. } => "unsupported",
            Integrity::Aborted { .. } => "aborted",
            Integrity::Error { .. } => "error",
            Integrity::NoSamples => "no samples",
        }
    }

    /// What arrived or what the browser said, when there is more than the word.
    pub fn detail(&self) -> Option<String> {
        match self {
            Integrity::Corrupted {
                bytes_received,
                head,
            } => Some(format!("received {bytes_received} bytes `{head}`")),
            Integrity::Unsupported { error }
            | Integrity::Aborted { error }
            | Integrity::Error { error } => Some(error.clone()),
            Integrity::Intact | Integrity::NoSamples => None,
        }
    }

    /// Why this happened, for the findings the tool knows how to explain; `body` is the
    /// arm's body kind.
    pub fn why(&self, arm: &crate::arm::Arm) -> Option<&'static str> {
        let stream = arm.kind
            == (crate::arm::ArmKind::Body {
                body: crate::arm::BodyKind::ReadableStream,
            });
        let stream_over_http1 = stream && arm.travels_over().protocol() == "http/1.1";
        match self {
            Integrity::Corrupted { head, .. } if head.starts_with(STRINGIFIED_STREAM) => Some(
                "Firefox does not support a ReadableStream as a fetch() body: it uploads the stream's name as text, and fetch() still answers 200. An app that streams its uploads sends garbage in Firefox without any error.",
            ),
            // The DOMException's name: WebKit refuses stream bodies outright.
            Integrity::Unsupported { error } if stream && error.starts_with("NotSupportedError") => Some(
                "WebKitGTK does not upload a ReadableStream body over any transport: fetch() rejects it at once (NotSupportedError) and nothing is sent. Apple's WebKit enabled stream uploads over HTTP/2 in 2026, so Safari may differ.",
            ),
            // Chromium's own rejection (WebKit's is another, above).
            Integrity::Unsupported { error } if stream_over_http1 && error.starts_with("TypeError") => Some(
                "Chromium sends a ReadableStream body only over HTTP/2 or HTTP/3, and this sink spoke HTTP/1.1, so fetch() rejected it before sending anything. An h2 arm (`--transport h2`) measures it over HTTP/2.",
            ),
            _ => None,
        }
    }
}

/// "intact", or "corrupted: received 23 bytes `[object ReadableStream]`".
impl fmt::Display for Integrity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.detail() {
            Some(detail) => write!(f, "{}: {detail}", self.word()),
            None => f.write_str(self.word()),
        }
    }
}

/// Reports keep the text form under its old name, `verdict`.
pub fn as_text<S: serde::Serializer>(i: &Integrity, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(i)
}
