//! Whether an arm's bytes arrived as sent: the worst thing that happened to any of its
//! uploads, typed, so reports and the popup branch on a kind and never on words.

use crate::domain::sample::{Sample, SampleStatus};
use crate::domain::workload::ModuleFailure;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, strum::EnumDiscriminants)]
#[serde(tag = "status", rename_all = "kebab-case")]
#[strum_discriminants(
    name(IntegrityStatus),
    derive(Serialize, schemars::JsonSchema, strum::EnumIter),
    serde(rename_all = "kebab-case")
)]
pub enum Integrity {
    /// Every upload arrived whole: length and SHA-256 match what the page sent.
    Intact,
    /// Bytes arrived, but not the ones sent. `head` is the start of what arrived.
    Corrupted {
        bytes_received: u64,
        head: String,
    },
    /// fetch() rejected the body (e.g. a stream body over HTTP/1.1 in Chromium).
    /// `error`, in each failure: the browser's own words when it rejected the upload,
    /// else the sample's `error` (a `SampleError` by name, or an older sample's
    /// sentence); `http_status` when the sink answered with another status than 200.
    Unsupported {
        error: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        http_status: Option<u16>,
        /// How a workload module failed (its `error` is then the module's own words,
        /// or `module-failed`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        module_failure: Option<ModuleFailure>,
    },
    Aborted {
        error: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        http_status: Option<u16>,
        /// How a workload module failed (its `error` is then the module's own words,
        /// or `module-failed`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        module_failure: Option<ModuleFailure>,
    },
    Error {
        error: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        http_status: Option<u16>,
        /// How a workload module failed (its `error` is then the module's own words,
        /// or `module-failed`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        module_failure: Option<ModuleFailure>,
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
        let failed = |s: &&Sample| {
            let said = s.rejection.as_ref().or(s.error.as_ref());
            let error = said.cloned().unwrap_or_else(|| "no detail".into());
            (error, s.http_status, s.module_failure.clone())
        };
        if let Some(s) = worst(SampleStatus::Unsupported) {
            let (error, http_status, module_failure) = failed(s);
            return Integrity::Unsupported {
                error,
                http_status,
                module_failure,
            };
        }
        if let Some(s) = worst(SampleStatus::Aborted) {
            let (error, http_status, module_failure) = failed(s);
            return Integrity::Aborted {
                error,
                http_status,
                module_failure,
            };
        }
        if let Some(s) = worst(SampleStatus::Error) {
            let (error, http_status, module_failure) = failed(s);
            return Integrity::Error {
                error,
                http_status,
                module_failure,
            };
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

    /// Why this happened, for the findings the tool knows how to explain (its words:
    /// `export::words::integrity_why`).
    pub fn why(&self, arm: &crate::domain::arm::Arm) -> Option<IntegrityWhy> {
        let stream = arm.kind
            == (crate::domain::arm::ArmKind::Body {
                body: crate::domain::arm::BodyKind::ReadableStream,
            });
        let stream_over_http1 = stream && arm.travels_over().protocol() == "http/1.1";
        match self {
            Integrity::Corrupted { head, .. } if head.starts_with(STRINGIFIED_STREAM) => {
                Some(IntegrityWhy::StreamUploadedAsText)
            }
            // The DOMException's name: WebKit refuses stream bodies outright.
            Integrity::Unsupported { error, .. }
                if stream && error.starts_with("NotSupportedError") =>
            {
                Some(IntegrityWhy::NoStreamUploads)
            }
            // Chromium's own rejection (WebKit's is another, above).
            Integrity::Unsupported { error, .. }
                if stream_over_http1 && error.starts_with("TypeError") =>
            {
                Some(IntegrityWhy::StreamNeedsHttp2)
            }
            _ => None,
        }
    }

    /// Its `status`, without what arrived.
    pub fn status(&self) -> IntegrityStatus {
        self.into()
    }
}

/// The findings of integrity the tool can explain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum IntegrityWhy {
    /// Firefox uploads a ReadableStream body's name as text, and answers 200.
    StreamUploadedAsText,
    /// WebKitGTK refuses a ReadableStream body over any transport.
    NoStreamUploads,
    /// Chromium sends a ReadableStream body only over HTTP/2 or HTTP/3.
    StreamNeedsHttp2,
}

/// Reports keep the text form under its old name, `verdict`.
pub fn as_text<S: serde::Serializer>(i: &Integrity, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(i)
}
