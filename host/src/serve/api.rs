//! The page's messages, answered. Each is a native message carried over HTTP and
//! answered by the native handlers (`native::dispatch`), so a page of `serve` is judged
//! exactly as the extension is; what this file adds is what HTTP needs: the offer a
//! page may take (it never sends a plan), a key per run so that one device cannot write
//! into another's run, the browser read from the request, and per-peer rate limits.

use super::offer::Offer;
use super::rate::{Cost, Limits};
use super::user_agent::{self, Hints};
use super::Ended;
use crate::domain::run::{RunInfo, RunSource, RunStatus};
use crate::native::Session;
use crate::platform::untrusted::Clipped;
use crate::protocol::{ErrorCode, Incoming, MessageType, Outgoing};
use crate::sink::api::{Api, ApiReply, ApiRequest};
use crate::store::{records::now, Record};
use hyper::header::{HeaderMap, HOST, USER_AGENT};
use hyper::Method;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// The state behind the page messages: the native session, the offer, and the runs
/// pages started.
pub struct State {
    session: Session,
    offer: Offer,
    /// The offer of `unobserved run` is taken once.
    taken: bool,
    runs: HashMap<String, PageRun>,
    ended: tokio::sync::mpsc::UnboundedSender<Ended>,
}

/// A run a page started: the key its later messages must carry, and whether it ended.
struct PageRun {
    key: String,
    env: crate::domain::sample::Environment,
    ended: bool,
}

impl State {
    pub fn new(
        session: Session,
        offer: Offer,
        ended: tokio::sync::mpsc::UnboundedSender<Ended>,
    ) -> State {
        State {
            session,
            offer,
            taken: false,
            runs: HashMap::new(),
            ended,
        }
    }

    pub fn end_open_runs(&mut self, status: RunStatus, reason: &str) {
        for (run_id, run) in self.runs.iter_mut().filter(|(_, r)| !r.ended) {
            run.ended = true;
            let record = Record::RunEnd {
                run_id: run_id.clone(),
                status,
                reason: Some(reason.to_owned()),
                recorded_at: now(),
                observation: None,
                auto_stop: None,
            };
            if let Err(e) = self.session.store.append(&[record]) {
                log::error!("could not record how run {run_id} ended: {e}");
            }
        }
    }
}

/// The sink's `Api`: attached to the state once the sink (which the state owns) runs.
pub struct ServeApi {
    state: OnceLock<Weak<Mutex<State>>>,
    limits: Limits,
}

impl ServeApi {
    pub fn new(limits: Limits) -> ServeApi {
        ServeApi {
            state: OnceLock::new(),
            limits,
        }
    }

    pub fn attach(&self, state: &Arc<Mutex<State>>) {
        let _ = self.state.set(Arc::downgrade(state));
    }
}

impl Api for ServeApi {
    fn handle(&self, request: ApiRequest) -> ApiReply {
        let cost = match (&request.method, request.what.as_str()) {
            (&Method::POST, "start") => Cost::Start,
            _ => Cost::Message,
        };
        if !self.limits.allow(request.peer, Cost::Message)
            || (cost == Cost::Start && !self.limits.allow(request.peer, Cost::Start))
        {
            return refusal(
                Refusal::RateLimited,
                "too many requests from this address; wait a moment",
            );
        }
        let Some(state) = self.state.get().and_then(Weak::upgrade) else {
            return refusal(Refusal::Stopping, "serve is stopping");
        };
        let mut state = state.lock().unwrap();
        route(&mut state, &request)
    }

    fn allow_probe(&self, peer: Option<std::net::IpAddr>) -> bool {
        self.limits.allow(peer, Cost::Probe)
    }
}

fn route(state: &mut State, request: &ApiRequest) -> ApiReply {
    let parts: Vec<&str> = request.what.split('/').collect();
    match (&request.method, parts.as_slice()) {
        (&Method::GET, ["offer"]) => offer(state),
        (&Method::POST, ["start"]) => start(state, request),
        (&Method::POST, ["runs", run_id, what]) => {
            let Some(what) = over_http(what) else {
                return refusal(Refusal::NotFound, "no such page message");
            };
            match body::<Keyed>(&request.body) {
                Ok(keyed) => run_message(state, run_id, what, keyed),
                Err(reply) => reply,
            }
        }
        _ => refusal(Refusal::NotFound, "no such page message"),
    }
}

/// A run message a page may send over HTTP, named as on the native port.
fn over_http(name: &str) -> Option<MessageType> {
    let what = name.parse().ok()?;
    MessageType::OVER_HTTP.contains(&what).then_some(what)
}

/// What the page may start: the plan (to show it), and how it starts.
fn offer(state: &State) -> ApiReply {
    let plan = &state.offer.plan;
    let arms: Vec<String> = plan.arms().iter().map(|a| a.label()).collect();
    ok(json!({"type": "offer", "plan": plan, "arms": arms,
        "measured_uploads": plan.measured_uploads(), "start": state.offer.start,
        "taken": state.taken}))
}

/// The page's own view of its browser, sent with `start` (the user agent comes from
/// the request itself).
#[derive(Deserialize, Default)]
struct StartBody {
    #[serde(default)]
    hints: Option<Hints>,
}

fn start(state: &mut State, request: &ApiRequest) -> ApiReply {
    let body: StartBody = match body(&request.body) {
        Ok(b) => b,
        Err(reply) => return reply,
    };
    if state.taken {
        return refusal(
            Refusal::OfferTaken,
            "the run this page was opened for has already started; nothing else is offered",
        );
    }
    let info = run_info(state, &request.headers, body.hints);
    let run_id = info.run_id.clone();
    let env = info.env.clone();
    // The browser running this page, when it is on this machine, is the run's own: its
    // CPU is not other work (`conditions::page_browser`).
    if let Some(c) = request.connection {
        let (roots, gap) = crate::conditions::serve_roots(c.local, c.peer);
        state.session.own_processes = roots;
        state.session.browser_gap = gap;
    }
    let mut reply = crate::native::dispatch(
        &mut state.session,
        Incoming::RunStarted {
            run: Box::new(info),
        },
    );
    if let Outgoing::RunStarted { upload_urls, .. } = &mut reply {
        // The page reaches h1 by the name it loaded from (a phone: the LAN name).
        if let Some(host) = request.headers.get(HOST).and_then(|h| h.to_str().ok()) {
            upload_urls.insert(
                crate::domain::arm::Transport::H1,
                format!("http://{host}{}", state.session.sink.upload_path()),
            );
        }
    } else {
        return answer(reply);
    }
    state.taken = state.offer.run_id.is_some();
    let key = crate::sink::token::generate();
    state.runs.insert(
        run_id,
        PageRun {
            key: key.clone(),
            env,
            ended: false,
        },
    );
    let mut value = serde_json::to_value(&reply).expect("replies serialise");
    value["run_key"] = key.into();
    // What the page shows of the run it started, and runs.
    let run = &state.runs[&value["run_id"].as_str().unwrap_or_default().to_owned()];
    value["browser"] = run.env.browser.clone().into();
    value["browser_version"] = run.env.browser_version.clone().into();
    value["os"] = run.env.os.clone().into();
    value["plan"] = serde_json::to_value(&state.offer.plan).expect("json");
    ok(value)
}

/// The run a start records: the offer's plan and id, and the browser as the request
/// shows it (the raw user agent and the hints are kept with the run).
fn run_info(state: &State, headers: &HeaderMap, page_hints: Option<Hints>) -> RunInfo {
    let ua = headers
        .get(USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let mut hints = page_hints.unwrap_or_default();
    if hints.brands.is_empty() {
        if let Some(header) = headers.get("sec-ch-ua").and_then(|v| v.to_str().ok()) {
            hints.brands = user_agent::brands_header(header);
        }
    }
    let parsed = user_agent::parse(&ua, &hints);
    let mut env = match &state.offer.env {
        Some(known) => known.or(&parsed),
        None => parsed,
    };
    env.extension_version = crate::platform::extension_files::version();
    let mut extra = serde_json::Map::new();
    extra.insert("user_agent".into(), ua.into());
    if hints != Hints::default() {
        extra.insert(
            "client_hints".into(),
            serde_json::to_value(&hints).expect("json"),
        );
    }
    RunInfo {
        run_id: state
            .offer
            .run_id
            .clone()
            .unwrap_or_else(crate::domain::run::new_run_id),
        env,
        plan: state.offer.plan.clone(),
        source: RunSource::Serve.as_str().into(),
        started_at: Some(now()),
        sink: Some(crate::domain::run::SinkChoice::Local),
        sink_url: None,
        extra,
    }
}

/// A message about one run: its key, and what it says.
#[derive(Deserialize, Default)]
struct Keyed {
    key: String,
    #[serde(default)]
    samples: Vec<Value>,
    #[serde(default)]
    reps_done: u32,
    #[serde(default)]
    status: Option<PageEnd>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    auto_stop: Option<crate::domain::plan::AutoStop>,
}

/// How a page may say its run ended; stopped and timed-out are the host's to say.
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum PageEnd {
    Complete,
    Incomplete,
    Failed,
}

fn run_message(state: &mut State, run_id: &str, what: MessageType, keyed: Keyed) -> ApiReply {
    // The same answer for a run never started and a key that is not its own.
    let Some(run) = state
        .runs
        .get(run_id)
        .filter(|r| crate::sink::token::matches(&r.key, &keyed.key))
    else {
        return answer(Outgoing::error(
            ErrorCode::UnknownRun,
            format!(
                "run {:?} was not started by this page; nothing was stored",
                Clipped(run_id)
            ),
            Some(what.into()),
        ));
    };
    let env = run.env.clone();
    let message = match what {
        MessageType::Samples => match samples_of(run_id, &env, keyed.samples) {
            Ok(samples) => Incoming::Samples {
                run_id: run_id.to_owned(),
                samples,
            },
            Err(reply) => return reply,
        },
        MessageType::AutoCheck => Incoming::AutoCheck {
            run_id: run_id.to_owned(),
            reps_done: keyed.reps_done,
        },
        MessageType::RunFinished => {
            let status = match keyed.status {
                Some(PageEnd::Complete) => RunStatus::Complete,
                Some(PageEnd::Incomplete) => RunStatus::Incomplete,
                Some(PageEnd::Failed) | None => RunStatus::Failed,
            };
            Incoming::RunFinished {
                run_id: run_id.to_owned(),
                status,
                reason: keyed.reason,
                observation: None,
                auto_stop: keyed.auto_stop,
            }
        }
        _ => return refusal(Refusal::NotFound, "no such page message"),
    };
    let reply = crate::native::dispatch(&mut state.session, message);
    if let (Outgoing::RunFinished { status, .. }, Some(run)) = (&reply, state.runs.get_mut(run_id))
    {
        if !run.ended {
            run.ended = true;
            // As the host recorded it: a page's "complete" is not taken on its word.
            let status = status.unwrap_or(RunStatus::Failed);
            let _ = state.ended.send(Ended {
                run_id: run_id.to_owned(),
                status,
            });
        }
    }
    answer(reply)
}

/// The page's samples, with the run's id and browser put in by the host: what the page
/// says about itself there is not asked.
fn samples_of(
    run_id: &str,
    env: &crate::domain::sample::Environment,
    samples: Vec<Value>,
) -> Result<Vec<crate::domain::sample::Sample>, ApiReply> {
    samples
        .into_iter()
        .map(|mut s| {
            let Some(object) = s.as_object_mut() else {
                return Err(refusal(Refusal::InvalidField, "a sample must be an object"));
            };
            object.insert("run_id".into(), run_id.into());
            // A page per block is counted by the extension's background; serve's page
            // runs every block in one page, and its own count is not asked.
            object.remove("page_load");
            for (k, v) in [
                ("browser", &env.browser),
                ("browser_version", &env.browser_version),
                ("os", &env.os),
                ("extension_version", &env.extension_version),
            ] {
                object.insert(k.into(), v.clone().into());
            }
            serde_json::from_value(s).map_err(|e| {
                answer(Outgoing::error(
                    ErrorCode::InvalidField,
                    format!("a sample could not be read: {}", Clipped(&e.to_string())),
                    Some(MessageType::Samples.into()),
                ))
            })
        })
        .collect()
}

fn body<T: serde::de::DeserializeOwned + Default>(bytes: &[u8]) -> Result<T, ApiReply> {
    if bytes.is_empty() {
        return Ok(T::default());
    }
    serde_json::from_slice(bytes).map_err(|e| {
        answer(Outgoing::error(
            ErrorCode::InvalidJson,
            format!(
                "the message is not what was expected: {}",
                Clipped(&e.to_string())
            ),
            None,
        ))
    })
}

fn ok(body: Value) -> ApiReply {
    ApiReply { status: 200, body }
}

/// serve's own refusals (the native errors have their codes; these have names), each
/// with its HTTP status (PROTOCOL.md, "Page ↔ host over HTTP").
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "kebab-case")]
pub enum Refusal {
    RateLimited,
    OfferTaken,
    NotFound,
    InvalidField,
    Stopping,
}

impl Refusal {
    pub fn status(self) -> u16 {
        match self {
            Refusal::RateLimited => 429,
            Refusal::OfferTaken => 409,
            Refusal::NotFound => 404,
            Refusal::InvalidField => 400,
            Refusal::Stopping => 503,
        }
    }
}

fn refusal(why: Refusal, message: &str) -> ApiReply {
    let name: &'static str = why.into();
    ApiReply {
        status: why.status(),
        body: json!({"type": "error", "name": name, "message": message}),
    }
}

/// A native reply as an HTTP answer: errors get the status that fits their code.
fn answer(reply: Outgoing) -> ApiReply {
    let status = match &reply {
        Outgoing::Error { code, .. } => match code {
            ErrorCode::UnknownRun => 404,
            ErrorCode::StoreFailed => 500,
            ErrorCode::TransportUnavailable => 503,
            _ => 400,
        },
        _ => 200,
    };
    ApiReply {
        status,
        body: serde_json::to_value(&reply).expect("replies serialise"),
    }
}
