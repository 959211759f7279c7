//! Numbered error codes sent in `{"type":"error"}` replies. The numbers are part of the
//! protocol: never renumber, only append. PROTOCOL.md lists them with their meaning.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::EnumIter)]
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
    // 12 was `caller-not-allowed`: never sent, since a refused caller gets no frame at
    // all (exit 3). The number stays retired.
    SinkUnavailable = 13,
    /// The plan asks for a transport this host has no listener for.
    TransportUnavailable = 14,
    /// A run-scoped message names a run this session never started: nothing is stored.
    UnknownRun = 15,
    /// `run-started`'s plan breaks a rule of `Plan::validate`; the reply's `kind` names
    /// which. Nothing is stored.
    InvalidPlan = 16,
    /// `turn`: an interleaved build's turn did not come (the turns' folder failed, or the
    /// other builds held it past the wait).
    TurnFailed = 17,
    /// `samples`: a sample does not fit its run (an arm, rep or size outside its plan, a
    /// rep stored twice, over the run's caps, or the run ended); the reply's `kind` names
    /// the rule. Nothing of the message is stored.
    SampleRefused = 18,
    /// `run-started`: a workload module of the plan could not be read for the run (not
    /// registered, its file gone or no longer a module), or the run's sink is remote.
    /// Nothing is stored.
    ModuleUnavailable = 19,
}

impl ErrorCode {
    pub fn number(self) -> u32 {
        self as u32
    }

    /// As it travels in an error reply's `code`: its number.
    pub fn serialize_number<S: serde::Serializer>(code: &Self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(code.number())
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
        use ErrorCode::*;
        let published = [
            (FrameTooLarge, 1, "frame-too-large"),
            (ZeroLength, 2, "zero-length"),
            (TruncatedFrame, 3, "truncated-frame"),
            (InvalidUtf8, 4, "invalid-utf8"),
            (InvalidJson, 5, "invalid-json"),
            (MissingType, 6, "missing-type"),
            (UnknownType, 7, "unknown-type"),
            (InvalidField, 8, "invalid-field"),
            (ReplyTooLarge, 9, "reply-too-large"),
            (StoreFailed, 10, "store-failed"),
            (InvalidRunId, 11, "invalid-run-id"),
            (SinkUnavailable, 13, "sink-unavailable"),
            (TransportUnavailable, 14, "transport-unavailable"),
            (UnknownRun, 15, "unknown-run"),
            (InvalidPlan, 16, "invalid-plan"),
            (TurnFailed, 17, "turn-failed"),
            (SampleRefused, 18, "sample-refused"),
            (ModuleUnavailable, 19, "module-unavailable"),
        ];
        for (code, number, name) in published {
            assert_eq!((code.number(), code.name()), (number, name.to_owned()));
        }
    }
}
