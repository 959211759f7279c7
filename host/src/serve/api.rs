//! The page's messages, answered. Each is a native message carried over HTTP and
//! answered by the native handlers (`native::dispatch`), so a page of `serve` is judged
//! exactly as the extension is; what this file adds is what HTTP needs: the offer a
//! page may take (it never sends a plan), a key per run so that one device cannot write
//! into another's run, the browser read from the request, and per-peer rate limits.

use super::offer::Offer;
use super::pages::{Loads, RunPages};
use super::rate::{Cost, Limits};
use super::user_agent::{self, Hints};
use super::Ended;
use crate::domain::conditions::PageRefusal;
use crate::domain::run::{EndReason, RunInfo, RunSource, RunStatus};
use crate::native::Session;
use crate::platform::untrusted::Clipped;
use crate::protocol::{ErrorCode, Incoming, MessageType, Outgoing, PageMessage};
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

/// A run a page started: the key its later messages must carry, whether it ended, its
/// benchmark pages, and what `start` answered (a fresh page is handed it again).
struct PageRun {
    key: String,
    env: crate::domain::sample::Environment,
    ended: bool,
    pages: RunPages,
    started: Value,
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
                end_reason: None,
                recorded_at: now(),
                observation: None,
                auto_stop: None,
            };
            if let Err(e) = self.session.store.append(&[record]) {
                log::error!("could not record how run {run_id} ended: {e}");
            }
        }
    }

    /// Ends `incomplete` each open run whose granted fresh page did not take over
    /// within `limit` of its grant, as the extension's background does, through the
    /// native handler (so it is judged and closed as any end), and says so to whoever
    /// waits on `serve`.
    pub fn end_overdue_pages(&mut self, now: std::time::Instant, limit: std::time::Duration) {
        let overdue: Vec<String> = self
            .runs
            .iter()
            .filter(|(_, r)| !r.ended && r.pages.overdue(now, limit))
            .map(|(id, _)| id.clone())
            .collect();
        for run_id in overdue {
            log::warn!("run {run_id}: no fresh page took over within {limit:?} of its grant");
            let reply = crate::native::end_by_host(
                &mut self.session,
                &run_id,
                RunStatus::Incomplete,
                EndReason::PageNotBack,
            );
            if let Some(run) = self.runs.get_mut(&run_id) {
                run.ended = true;
            }
            if let Outgoing::RunFinished {
                status: Some(status),
                ..
            } = reply
            {
                let _ = self.ended.send(Ended { run_id, status });
            }
        }
    }
}

/// The sink's `Api`: attached to the state once the sink (which the state owns) runs.
pub struct ServeApi {
    state: OnceLock<Weak<Mutex<State>>>,
    limits: Limits,
    /// Apart from the state: the page's GET takes a token without waiting on a store write.
    loads: Mutex<Loads>,
}

impl ServeApi {
    pub fn new(limits: Limits) -> ServeApi {
        ServeApi {
            state: OnceLock::new(),
            limits,
            loads: Mutex::new(Loads::default()),
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
        route(&mut state, &self.loads, &request)
    }

    fn allow_probe(&self, peer: Option<std::net::IpAddr>) -> bool {
        self.limits.allow(peer, Cost::Probe)
    }

    fn page_load(&self) -> Option<String> {
        Some(self.loads.lock().unwrap().mint())
    }
}

fn route(state: &mut State, loads: &Mutex<Loads>, request: &ApiRequest) -> ApiReply {
    let parts: Vec<&str> = request.what.split('/').collect();
    match (&request.method, parts.as_slice()) {
        (&Method::GET, ["offer"]) => offer(state),
        (&Method::POST, ["start"]) => start(state, loads, request),
        (&Method::POST, ["runs", run_id, what]) => {
            let keyed = match body::<Keyed>(&request.body) {
                Ok(keyed) => keyed,
                Err(reply) => return reply,
            };
            if let Ok(page) = what.parse::<PageMessage>() {
                return page_message(state, loads, run_id, page, keyed);
            }
            match over_http(what) {
                Some(what) => run_message(state, run_id, what, keyed),
                None => refusal(Refusal::NotFound, "no such page message"),
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
        "measured_uploads": plan.measured_uploads(), "minimum_reps": plan.minimum_reps(),
        "start": state.offer.start,
        "taken": state.taken}))
}

/// The page's own view of its browser, sent with `start` (the user agent comes from
/// the request itself).
#[derive(Deserialize, Default)]
struct StartBody {
    #[serde(default)]
    hints: Option<Hints>,
    /// The load token serve put in the page that starts the run (page 0).
    #[serde(default)]
    load: Option<String>,
}

fn start(state: &mut State, loads: &Mutex<Loads>, request: &ApiRequest) -> ApiReply {
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
    let pages = RunPages::first(&mut loads.lock().unwrap(), body.load.as_deref());
    ok(record_start(state, run_id, env, pages, &reply))
}

/// The run a page started, kept with its key and pages: what `start` answers.
fn record_start(
    state: &mut State,
    run_id: String,
    env: crate::domain::sample::Environment,
    pages: RunPages,
    reply: &Outgoing,
) -> Value {
    let mut value = serde_json::to_value(reply).expect("replies serialise");
    let key = crate::sink::token::generate();
    value["run_key"] = key.clone().into();
    // What the page shows of the run it started, and runs.
    value["browser"] = env.browser.clone().into();
    value["browser_version"] = env.browser_version.clone().into();
    value["os"] = env.os.clone().into();
    value["plan"] = serde_json::to_value(&state.offer.plan).expect("json");
    // A page per block, when serve knows the page that started the run.
    value["fresh_pages"] =
        (pages.renews() && state.offer.plan.block_reps.is_some_and(|k| k > 0)).into();
    let run = PageRun {
        key,
        env,
        ended: false,
        pages,
        started: value.clone(),
    };
    state.runs.insert(run_id, run);
    value
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
    #[serde(default)]
    end_reason: Option<crate::domain::run::EndReason>,
    /// The load token serve put in the page that sends this (a page per block).
    #[serde(default)]
    load: Option<String>,
    /// `new-page`: the rep the fresh page is to begin at.
    #[serde(default)]
    rep: u32,
}

/// How a page may say its run ended; stopped and timed-out are the host's to say.
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum PageEnd {
    Complete,
    Incomplete,
    Failed,
}

impl PageEnd {
    /// The status the page asks for (the host may record another); none says failed.
    fn status(said: Option<PageEnd>) -> RunStatus {
        match said {
            Some(PageEnd::Complete) => RunStatus::Complete,
            Some(PageEnd::Incomplete) => RunStatus::Incomplete,
            Some(PageEnd::Failed) | None => RunStatus::Failed,
        }
    }
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
    let page = run.pages.load_of(keyed.load.as_deref());
    let message = match what {
        MessageType::Samples => match samples_of(run_id, &env, page, keyed.samples) {
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
        MessageType::RunFinished => Incoming::RunFinished {
            run_id: run_id.to_owned(),
            status: PageEnd::status(keyed.status),
            reason: keyed.reason,
            observation: None,
            auto_stop: keyed.auto_stop,
            end_reason: keyed.end_reason,
        },
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

/// The run of `run_id` when `key` is its own.
fn keyed_run<'a>(state: &'a mut State, run_id: &str, key: &str) -> Option<&'a mut PageRun> {
    state
        .runs
        .get_mut(run_id)
        .filter(|r| crate::sink::token::matches(&r.key, key))
}

/// A page per block over HTTP: the current page's `new-page` (granted once the samples
/// it sent are stored: each was answered only then, and the page sends this after its
/// last answer), and the fresh page's `ready`, answered with the plan and where it resumes.
fn page_message(
    state: &mut State,
    loads: &Mutex<Loads>,
    run_id: &str,
    what: PageMessage,
    keyed: Keyed,
) -> ApiReply {
    let plan = state.offer.plan.clone();
    let Some(run) = keyed_run(state, run_id, &keyed.key) else {
        return answer(Outgoing::error(
            ErrorCode::UnknownRun,
            format!(
                "run {:?} was not started by this page; no page was granted",
                Clipped(run_id)
            ),
            None,
        ));
    };
    let load = keyed.load.as_deref();
    let done = match what {
        _ if run.ended => Err(PageRefusal::Ended),
        PageMessage::NewPage => run
            .pages
            .grant(&plan, load, keyed.rep)
            .map(|()| json!({"type": "new-page-granted", "ok": true, "rep": keyed.rep})),
        PageMessage::Ready => run
            .pages
            .resume(&mut loads.lock().unwrap(), load)
            .map(|rep| {
                let mut plan = run.started.clone();
                plan["resume"] = json!({"rep": rep, "condition": null});
                plan
            }),
    };
    match done {
        Ok(value) => ok(value),
        Err(why) => page_refusal(why),
    }
}

/// The page's samples, with the run's id and browser put in by the host: what the page
/// says about itself there is not asked.
fn samples_of(
    run_id: &str,
    env: &crate::domain::sample::Environment,
    page: Option<u32>,
    samples: Vec<Value>,
) -> Result<Vec<crate::domain::sample::Sample>, ApiReply> {
    samples
        .into_iter()
        .map(|mut s| {
            let Some(object) = s.as_object_mut() else {
                return Err(refusal(Refusal::InvalidField, "a sample must be an object"));
            };
            object.insert("run_id".into(), run_id.into());
            // The page it ran in as serve numbers it (`pages`), never the page's count.
            match page {
                Some(p) => object.insert("page_load".into(), p.into()),
                None => object.remove("page_load"),
            };
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
    PageRefused,
}

impl Refusal {
    pub fn status(self) -> u16 {
        match self {
            Refusal::RateLimited => 429,
            Refusal::OfferTaken => 409,
            Refusal::NotFound => 404,
            Refusal::InvalidField => 400,
            Refusal::Stopping => 503,
            Refusal::PageRefused => 409,
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

/// A fresh page refused, with why (typed `kind`, and in words).
fn page_refusal(why: PageRefusal) -> ApiReply {
    let mut reply = refusal(Refusal::PageRefused, &why.to_string());
    let kind: &'static str = why.into();
    reply.body["kind"] = kind.into();
    reply
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
