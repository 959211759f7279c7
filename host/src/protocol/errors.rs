//! Numbered error codes sent in `{"type":"error"}` replies. The numbers are part of the
//! protocol: never renumber, only append. PROTOCOL.md lists them with their meaning.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorCode {
    FrameTooLarge = 1,
    ZeroLength = 2,
    TruncatedFrame = 3,
    InvalidUtf8 = 4,
    InvalidJson = 5,
    MissingType = 6,
    UnknownType = 7,
    InvalidField = 8,
    ReplyTooLarge = 9,
    StoreFailed = 10,
    InvalidRunId = 11,
    CallerNotAllowed = 12,
    SinkUnavailable = 13,
    /// The plan asks for a transport this host has no listener for.
    TransportUnavailable = 14,
}

impl ErrorCode {
    pub fn number(self) -> u32 {
        self as u32
    }

    /// The kebab-case name that travels beside the number, for humans reading logs.
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_keep_their_published_numbers() {
        assert_eq!(ErrorCode::FrameTooLarge.number(), 1);
        assert_eq!(ErrorCode::InvalidField.number(), 8);
        assert_eq!(ErrorCode::SinkUnavailable.number(), 13);
        assert_eq!(ErrorCode::TransportUnavailable.number(), 14);
        assert_eq!(ErrorCode::UnknownType.name(), "unknown-type");
    }
}
