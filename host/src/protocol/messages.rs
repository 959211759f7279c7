//! Typed native messages. Incoming ones are parsed in steps so that each kind of bad
//! input maps to its own numbered error instead of one generic "parse failed".

use super::names::{InReplyTo, MessageType, ReplyType};
use super::ErrorCode;
use crate::domain::plan::PlanError;
use crate::domain::run::{RunInfo, RunStatus};
use crate::domain::sample::Sample;
use crate::platform::untrusted::Clipped;
use crate::protocol::job::Job;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use strum::IntoEnumIterator;

/// Browser to host.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Incoming {
    Hello {
        #[serde(default)]
        extension_version: Option<String>,
        #[serde(default)]
        browser: Option<String>,
    },
    RunStarted {
        run: Box<RunInfo>,
    },
    Samples {
        run_id: String,
        samples: Vec<Sample>,
    },
    RunFinished {
        run_id: String,
        status: RunStatus,
        #[serde(default)]
        reason: Option<String>,
        /// Whether a debugger was attached before and after the run, where known.
        #[serde(default)]
        observation: Option<Value>,
        /// Why an `--auto` run stopped adding reps.
        #[serde(default)]
        auto_stop: Option<crate::domain::plan::AutoStop>,
        /// Why the run ended, where the page's side knows (`EndReason::told_by_page`);
        /// `reason` is then its detail, if any.
        #[serde(default)]
        end_reason: Option<crate::domain::run::EndReason>,
    },
    Error {
        message: String,
        #[serde(default)]
        code: Option<i64>,
    },
    /// The run's AES-256-GCM key for encrypted-chunk workloads (64 hex digits).
    WorkloadKey {
        run_id: String,
        key: String,
    },
    /// `--auto`: after each rep, should the run add another?
    AutoCheck {
        run_id: String,
        reps_done: u32,
    },
    /// Interleaved builds: before each rep, wait for this build's turn.
    Turn {
        run_id: String,
    },
}

impl Incoming {
    /// The message's `type`.
    pub fn kind(&self) -> MessageType {
        match self {
            Incoming::Hello { .. } => MessageType::Hello,
            Incoming::RunStarted { .. } => MessageType::RunStarted,
            Incoming::Samples { .. } => MessageType::Samples,
            Incoming::RunFinished { .. } => MessageType::RunFinished,
            Incoming::Error { .. } => MessageType::Error,
            Incoming::WorkloadKey { .. } => MessageType::WorkloadKey,
            Incoming::AutoCheck { .. } => MessageType::AutoCheck,
            Incoming::Turn { .. } => MessageType::Turn,
        }
    }
}

/// A registered workload module as the extension sees it: its name, and the SHA-256
/// and size its file had when it was added (a run records the code it ran).
#[derive(Debug, Clone, Serialize)]
pub struct RegisteredModule {
    pub name: crate::domain::workload::ModuleName,
    pub sha256: String,
    pub bytes: u64,
}

/// Host to browser.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Outgoing {
    Hello {
        version: String,
        sink: SinkInfo,
        job: Option<Box<Job>>,
        /// The workload modules registered with `unobserved workload add`, which the
        /// popup and Options offer as arms.
        modules: Vec<RegisteredModule>,
    },
    RunStarted {
        run_id: String,
        /// The sink's own ingest ceiling for this body size (None if it could not be measured).
        sink_ceiling_mbps: Option<f64>,
        /// Every arm of one rep, in order: the page builds its steps from these.
        arms: Vec<PlannedArm>,
        /// How many uploads the run will measure, at most (progress bars).
        measured_uploads: u64,
        /// The reps it takes before any budget may stop it (`Plan::minimum_reps`).
        minimum_reps: u32,
        /// Where each of the plan's transports uploads: h1's sink and each TLS one.
        upload_urls: std::collections::BTreeMap<crate::domain::arm::Transport, String>,
        /// Interleaved builds: ask for a `turn` before each rep.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        take_turns: bool,
        /// A plan with workload modules: the seed of the bytes every module is given
        /// (`sink::expected`, `extension/lib/module-bytes.js`), 32 hex digits.
        #[serde(skip_serializing_if = "Option::is_none")]
        module_seed: Option<String>,
    },
    SamplesAck {
        run_id: String,
        count: usize,
    },
    RunFinished {
        run_id: String,
        /// How the host recorded the run's end: a page's "complete" with fewer samples
        /// than its plan needs is recorded incomplete (absent after a second end).
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<crate::domain::run::RunStatus>,
        /// Why, typed, when the host knows (a remote sink that went away).
        #[serde(skip_serializing_if = "Option::is_none")]
        end_reason: Option<crate::domain::run::EndReason>,
        /// The stored run's analysis, for the popup (absent after a second end).
        #[serde(skip_serializing_if = "Option::is_none")]
        analysis: Option<Box<crate::report::analysis::Analysis>>,
    },
    ErrorLogged,
    WorkloadKey {
        run_id: String,
    },
    /// This build's turn has come: run the next rep.
    Turn {
        run_id: String,
    },
    AutoDecision {
        run_id: String,
        more: bool,
        /// Why it stops, when it does.
        #[serde(skip_serializing_if = "Option::is_none")]
        stop: Option<crate::domain::plan::AutoStop>,
        /// The same as data, or which comparisons are not settled yet (the words are
        /// the reader's: `export::words::auto_reason`, the extension's `words.js`).
        reason: crate::domain::plan::AutoReason,
        /// Comparisons settled so far, of how many, and the seconds of budget left.
        #[serde(flatten)]
        progress: AutoProgress,
    },
    Error {
        #[serde(serialize_with = "ErrorCode::serialize_number")]
        code: ErrorCode,
        name: String,
        message: String,
        /// Which rule, for errors that have several (error 16: the plan's).
        #[serde(skip_serializing_if = "Option::is_none")]
        kind: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        in_reply_to: Option<InReplyTo>,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct SinkInfo {
    pub base_url: String,
    pub upload_url: String,
    pub page_url: String,
}

/// One arm of the plan as the page runs it: the arm, typed, and its label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedArm {
    pub arm: crate::domain::arm::Arm,
    pub label: String,
}

impl Outgoing {
    /// The reply's `type`.
    pub fn kind(&self) -> ReplyType {
        match self {
            Outgoing::Hello { .. } => ReplyType::Hello,
            Outgoing::RunStarted { .. } => ReplyType::RunStarted,
            Outgoing::SamplesAck { .. } => ReplyType::SamplesAck,
            Outgoing::RunFinished { .. } => ReplyType::RunFinished,
            Outgoing::ErrorLogged => ReplyType::ErrorLogged,
            Outgoing::WorkloadKey { .. } => ReplyType::WorkloadKey,
            Outgoing::Turn { .. } => ReplyType::Turn,
            Outgoing::AutoDecision { .. } => ReplyType::AutoDecision,
            Outgoing::Error { .. } => ReplyType::Error,
        }
    }

    pub fn error(
        code: ErrorCode,
        message: impl Into<String>,
        in_reply_to: Option<InReplyTo>,
    ) -> Self {
        Outgoing::Error {
            code,
            name: code.name(),
            message: message.into(),
            kind: None,
            in_reply_to,
        }
    }

    /// Error 16: the plan cannot run, with the rule it breaks as `kind`.
    pub fn invalid_plan(e: &PlanError, in_reply_to: MessageType) -> Self {
        let mut error = Outgoing::error(
            ErrorCode::InvalidPlan,
            format!("{e}; nothing was recorded"),
            Some(in_reply_to.into()),
        );
        if let Outgoing::Error { kind, .. } = &mut error {
            *kind = Some(e.kind());
        }
        error
    }
}

impl Outgoing {
    /// Error 18: a `samples` message does not fit its run, with the rule as `kind`.
    pub fn sample_refused(misfit: &crate::verify::fit::Misfit) -> Self {
        let mut error = Outgoing::error(
            ErrorCode::SampleRefused,
            format!("{misfit}; nothing was stored"),
            Some(MessageType::Samples.into()),
        );
        if let Outgoing::Error { kind, .. } = &mut error {
            *kind = Some(misfit.kind());
        }
        error
    }
}

/// A message that could not be understood, with the code to answer it with.
#[derive(Debug)]
pub struct BadMessage {
    pub code: ErrorCode,
    pub message: String,
    /// The `type` the message claimed, when it had one.
    pub message_type: Option<InReplyTo>,
    /// A plan that names a body kind this host does not know cannot be read as a Plan:
    /// it is refused as the invalid plan it is (error 16), not as a malformed field.
    pub plan_error: Option<PlanError>,
}

impl BadMessage {
    pub fn reply(&self) -> Outgoing {
        match &self.plan_error {
            Some(e) => Outgoing::invalid_plan(e, MessageType::RunStarted),
            None => Outgoing::error(self.code, self.message.clone(), self.message_type.clone()),
        }
    }
}

impl BadMessage {
    fn new(code: ErrorCode, message: String, message_type: Option<InReplyTo>) -> BadMessage {
        BadMessage {
            code,
            message,
            message_type,
            plan_error: None,
        }
    }
}

/// A message's `type`, looked up while the parser still holds it, so that an unknown
/// one (64 MiB of name, or an escaped name's decoded copy) is never copied whole.
struct Kind(Result<MessageType, BadMessage>);

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Kind, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Kind;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a message type")
            }
            fn visit_str<E>(self, claimed: &str) -> Result<Kind, E> {
                Ok(Kind(known_kind(claimed)))
            }
        }
        d.deserialize_str(Visitor)
    }
}

fn known_kind(claimed: &str) -> Result<MessageType, BadMessage> {
    claimed.parse().map_err(|_| {
        let claimed = Clipped(claimed);
        let known: Vec<&str> = MessageType::iter().map(MessageType::as_str).collect();
        BadMessage::new(
            ErrorCode::UnknownType,
            format!(
                "unknown message type {claimed:?}; expected one of {}",
                known.join(", ")
            ),
            Some(InReplyTo::Unknown(claimed.to_string())),
        )
    })
}

pub fn parse_incoming(bytes: &[u8]) -> Result<Incoming, BadMessage> {
    let bad = BadMessage::new;
    let text = std::str::from_utf8(bytes).map_err(|e| {
        bad(
            ErrorCode::InvalidUtf8,
            format!("message is not UTF-8: {e}"),
            None,
        )
    })?;
    // Checked without building anything: a 64 MiB `[0,0,...]` must not become 2 GiB
    // of parsed values before it is refused.
    serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|e| {
        bad(
            ErrorCode::InvalidJson,
            format!("message is not JSON: {}", Clipped(&e)),
            None,
        )
    })?;
    /// Only the type; every other field is skipped unread.
    #[derive(Deserialize)]
    struct Probe {
        #[serde(rename = "type")]
        kind: Option<Kind>,
    }
    let Some(Kind(kind)) = serde_json::from_str::<Probe>(text)
        .ok()
        .and_then(|p| p.kind)
    else {
        return Err(bad(
            ErrorCode::MissingType,
            "message has no string \"type\" field".into(),
            None,
        ));
    };
    let kind = kind?;
    // Each kind has a size it never needs to exceed; parsing stays proportionate.
    let cap = kind.max_bytes();
    if bytes.len() > cap {
        return Err(bad(
            ErrorCode::InvalidField,
            format!(
                "a {:?} message may be at most {cap} bytes, not {}",
                kind.as_str(),
                bytes.len()
            ),
            Some(kind.into()),
        ));
    }
    serde_json::from_str(text).map_err(|e| unparsed(text, kind, e))
}

/// Why a message of a known type did not parse: a plan naming an unknown body kind is
/// an invalid plan (16), anything else a bad field (8).
fn unparsed(text: &str, kind: MessageType, e: serde_json::Error) -> BadMessage {
    let plan_error = (kind == MessageType::RunStarted)
        .then(|| unknown_body(text))
        .flatten();
    BadMessage {
        code: match plan_error {
            Some(_) => ErrorCode::InvalidPlan,
            None => ErrorCode::InvalidField,
        },
        // serde's errors quote the offending value, which may be megabytes long.
        message: format!("bad {:?} message: {}", kind.as_str(), Clipped(&e)),
        message_type: Some(kind.into()),
        plan_error,
    }
}

/// The first of a `run-started` plan's body kinds that names no BodyKind.
fn unknown_body(text: &str) -> Option<PlanError> {
    let run: Value = serde_json::from_str(text).ok()?;
    let bodies = run.pointer("/run/plan/bodies")?.as_array()?;
    bodies
        .iter()
        .filter_map(Value::as_str)
        .find(|b| b.parse::<crate::domain::arm::BodyKind>().is_err())
        .map(|body| PlanError::UnknownBody { body: body.into() })
}

/// How far an auto-sampled run is, for the popup's and the terminal's progress.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct AutoProgress {
    /// Comparisons whose interval lies entirely inside or outside the horizon.
    pub settled: usize,
    /// Every comparison the run makes so far.
    pub comparisons: usize,
    /// Of the time budget, counted from the run's start.
    pub seconds_left: u64,
    /// The settled ones, so a verdict is seen as soon as it stands.
    pub settled_verdicts: Vec<crate::stats::compare::Comparison>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(bytes: &[u8]) -> ErrorCode {
        parse_incoming(bytes).expect_err("must be refused").code
    }

    #[test]
    fn hello_parses() {
        let m = parse_incoming(br#"{"type":"hello","extension_version":"0.1.0"}"#).unwrap();
        assert!(matches!(m, Incoming::Hello { extension_version: Some(v), .. } if v == "0.1.0"));
    }

    #[test]
    fn each_kind_of_bad_input_has_its_own_code() {
        assert_eq!(code_of(b"\xff\xfe{}"), ErrorCode::InvalidUtf8);
        assert_eq!(code_of(b"{\"type\":"), ErrorCode::InvalidJson);
        assert_eq!(code_of(b"[1,2]"), ErrorCode::MissingType);
        assert_eq!(code_of(br#"{"type":7}"#), ErrorCode::MissingType);
        assert_eq!(
            code_of(br#"{"type":"launch-missiles"}"#),
            ErrorCode::UnknownType
        );
        assert_eq!(
            code_of(br#"{"type":"samples","run_id":"r","samples":"lots"}"#),
            ErrorCode::InvalidField
        );
        assert_eq!(
            code_of(br#"{"type":"run-finished","run_id":5,"status":"complete"}"#),
            ErrorCode::InvalidField
        );
    }

    #[test]
    fn a_plan_naming_an_unknown_body_kind_is_an_invalid_plan_not_a_bad_field() {
        let run = |bodies: &str| {
            format!(
                r#"{{"type":"run-started","run":{{"run_id":"r","plan":{{"size_bytes":1024,"reps":1,"warmup":0,"bodies":{bodies}}}}}}}"#
            )
        };
        let e = parse_incoming(run(r#"["Blob","Foo"]"#).as_bytes()).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidPlan);
        let reply = serde_json::to_value(e.reply()).unwrap();
        assert_eq!(
            (&reply["code"], &reply["kind"]),
            (&16.into(), &"unknown-body".into())
        );
        // A body that is not even a string is a malformed field, as before.
        assert_eq!(code_of(run("[5]").as_bytes()), ErrorCode::InvalidField);
        assert!(parse_incoming(run(r#"["Blob"]"#).as_bytes()).is_ok());
    }

    #[test]
    fn wrong_field_type_names_the_message() {
        let e = parse_incoming(br#"{"type":"samples","run_id":"r","samples":"lots"}"#).unwrap_err();
        assert_eq!(e.message_type, Some(MessageType::Samples.into()));
    }

    #[test]
    fn input_quoted_in_an_error_is_clipped() {
        let long = "\u{85}".repeat(1 << 20);
        let unknown = format!(r#"{{"type":"{long}"}}"#);
        let wrong_type = format!(r#"{{"type":"samples","run_id":"r","samples":"{long}"}}"#);
        for (frame, code) in [
            (unknown, ErrorCode::UnknownType),
            (wrong_type, ErrorCode::InvalidField),
        ] {
            let e = parse_incoming(frame.as_bytes()).unwrap_err();
            assert_eq!(e.code, code);
            assert!(e.message.len() < 2048, "{} bytes", e.message.len());
            let said = serde_json::to_value(e.message_type).unwrap();
            assert!(said.as_str().map_or(0, str::len) < 1024);
        }
    }

    #[test]
    fn error_replies_carry_number_and_name() {
        let v = serde_json::to_value(Outgoing::error(
            ErrorCode::UnknownType,
            "nope",
            Some(InReplyTo::Unknown("x".into())),
        ))
        .unwrap();
        assert_eq!(v["type"], "error");
        assert_eq!(v["code"], 7);
        assert_eq!(v["name"], "unknown-type");
        assert_eq!(v["in_reply_to"], "x");
        assert!(
            v.get("kind").is_none(),
            "only errors with several rules carry a kind"
        );
    }
}
