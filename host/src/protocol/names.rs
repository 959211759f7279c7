//! The names of the messages, as enums: what `type` a message from the browser may
//! carry (`MessageType`), and what a reply carries (`ReplyType`). serde's tags on
//! `Incoming` and `Outgoing` spell the same names; the tests below hold the two to each
//! other and write `tests/fixtures/names.json`, which the extension's constants
//! (`extension/lib/names.js`) are checked against.

/// The `type` of a message the browser sends the host.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    strum::EnumIter,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::Display,
)]
#[strum(serialize_all = "kebab-case")]
pub enum MessageType {
    Hello,
    RunStarted,
    Samples,
    RunFinished,
    Error,
    AutoCheck,
    WorkloadKey,
    Turn,
}

impl MessageType {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The run messages a page of `unobserved serve` sends over HTTP, under
    /// `/serve/<token>/runs/<run id>/<name>` (PROTOCOL.md, "Page ↔ host over HTTP").
    pub const OVER_HTTP: [MessageType; 3] = [
        MessageType::Samples,
        MessageType::AutoCheck,
        MessageType::RunFinished,
    ];

    /// The largest frame a message of this type may be. Samples come one per message
    /// from the extension (about 1 KiB each); 4 MiB leaves room for thousands in one batch.
    pub fn max_bytes(self) -> usize {
        match self {
            MessageType::Samples | MessageType::RunStarted => 4 << 20,
            _ => 64 << 10,
        }
    }
}

/// The page protocol's own messages that `unobserved serve` answers over HTTP, under
/// `/serve/<token>/runs/<run id>/<name>`: on the native path the extension's background
/// answers them, so they are no native message (a page per block, PROTOCOL.md).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::EnumIter, strum::EnumString, strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
pub enum PageMessage {
    /// The current page hands the run to a fresh page at a block's first rep.
    NewPage,
    /// A fresh page takes over: the plan, and the rep it resumes at.
    Ready,
}

/// The `type` of a reply the host sends.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::EnumIter, strum::IntoStaticStr, strum::Display,
)]
#[strum(serialize_all = "kebab-case")]
pub enum ReplyType {
    Hello,
    RunStarted,
    SamplesAck,
    RunFinished,
    ErrorLogged,
    WorkloadKey,
    Turn,
    AutoDecision,
    Error,
}

/// Which message an error answers: one of ours, or the unknown `type` a message
/// claimed (clipped), said back as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InReplyTo {
    Known(MessageType),
    Unknown(String),
}

impl serde::Serialize for InReplyTo {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            InReplyTo::Known(t) => s.serialize_str(t.as_str()),
            InReplyTo::Unknown(claimed) => s.serialize_str(claimed),
        }
    }
}

impl From<MessageType> for InReplyTo {
    fn from(t: MessageType) -> InReplyTo {
        InReplyTo::Known(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::arm::Condition;
    use crate::domain::plan::AutoStop;
    use crate::domain::run::{EndReason, RunStatus};
    use crate::domain::sample::{SampleError, SampleStatus};
    use crate::protocol::ErrorCode;
    use serde_json::{json, Value};
    use strum::IntoEnumIterator;

    fn names<T: IntoEnumIterator + serde::Serialize>() -> Vec<Value> {
        T::iter()
            .map(|v| serde_json::to_value(v).expect("a name"))
            .collect()
    }

    fn strs<T: IntoEnumIterator + Into<&'static str>>() -> Vec<&'static str> {
        T::iter().map(Into::into).collect()
    }

    /// Every name the extension shares with the host, from the host's enums.
    fn shared_names() -> Value {
        let errors: serde_json::Map<String, Value> = ErrorCode::iter()
            .map(|c| (c.name(), c.number().into()))
            .collect();
        json!({
            "host_messages": strs::<MessageType>(),
            "host_replies": strs::<ReplyType>(),
            "serve_messages": MessageType::OVER_HTTP
                .map(MessageType::as_str)
                .into_iter()
                .chain(strs::<PageMessage>())
                .collect::<Vec<_>>(),
            "sample_statuses": names::<SampleStatus>(),
            "sample_errors": names::<SampleError>(),
            "run_statuses": names::<RunStatus>(),
            "conditions": names::<Condition>(),
            "auto_stops": names::<AutoStop>(),
            "end_reasons": names::<EndReason>(),
            "integrity_statuses": names::<crate::stats::integrity::IntegrityStatus>(),
            "auto_reasons": names::<crate::domain::plan::AutoReasonKind>(),
            "host_errors": errors,
        })
    }

    #[test]
    fn the_names_fixture_holds_the_host_enums() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/names.json");
        let data = shared_names();
        if std::env::var_os("UNOBSERVED_WRITE_FIXTURES").is_some() {
            let json = serde_json::to_string_pretty(&data).unwrap() + "\n";
            std::fs::write(path, json).unwrap();
        }
        let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(
            fixture, data,
            "UNOBSERVED_WRITE_FIXTURES=1 cargo test -p unobserved --lib names rewrites it"
        );
    }

    /// serde's tag on `Incoming` spells each `MessageType`: a message of every type
    /// parses as that type, and no other name does.
    #[test]
    fn every_message_type_is_a_message_serde_reads() {
        for t in MessageType::iter() {
            let frame = json!({"type": t.as_str()}).to_string();
            match crate::protocol::parse_incoming(frame.as_bytes()) {
                Ok(m) => assert_eq!(m.kind(), t),
                Err(e) => assert_ne!(e.code, ErrorCode::UnknownType, "{t}: {}", e.message),
            }
        }
    }

    #[test]
    fn every_reply_says_its_reply_type() {
        use crate::protocol::Outgoing;
        let replies = [
            Outgoing::SamplesAck {
                run_id: "r".into(),
                count: 1,
            },
            Outgoing::ErrorLogged,
            Outgoing::WorkloadKey { run_id: "r".into() },
            Outgoing::Turn { run_id: "r".into() },
            Outgoing::error(ErrorCode::UnknownRun, "x", None),
        ];
        for reply in replies {
            let v = serde_json::to_value(&reply).unwrap();
            assert_eq!(v["type"], reply.kind().to_string());
        }
    }
}
