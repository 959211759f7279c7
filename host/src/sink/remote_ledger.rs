//! A sink elsewhere (`unobserved sink`, reached with `run --sink-url`) keeps its own
//! ledger; the host that stores the samples claims each record from it with the sink's
//! token, over the URL's transport (an https:// sink's pinned certificate and nothing
//! else, `pinned.rs`): `PUT /ledger/<token>?run=<run id>&upload=<id>` answers the
//! `Claim` as JSON and consumes the record, `PUT /ledger/<token>?run=<run id>&forget=1`
//! drops the run's records when it ends, and `PUT /ledger/<token>?run=<run id>&open=<records>`
//! opens a run before its uploads (the sink keeps records only for runs opened so;
//! `Ledger::open_run`), answering the room given.

use super::ledger::{Claim, Ledger, Records, UploadTag};
use super::probe::Client;
use super::reply::{json, json_error, Reply};
use super::routes::LEDGER_PREFIX;
use crate::domain::sink_url::SinkUrl;
use crate::domain::upload_id::UploadId;

/// The sink's side of the route.
pub fn answer(ledger: &Ledger, path_and_query: &str) -> Reply {
    let query = path_and_query.split_once('?').map_or("", |(_, q)| q);
    if let Some(run) = query.split('&').find_map(|kv| kv.strip_prefix("run=")) {
        if query.split('&').any(|kv| kv == "forget=1") && crate::domain::run::valid_run_id(run) {
            ledger.forget_run(run);
            return json(200, &serde_json::json!({ "forgot": run }));
        }
        let open = query.split('&').find_map(|kv| kv.strip_prefix("open="));
        if let Some(wanted) = open.and_then(|n| n.parse::<usize>().ok()) {
            if !crate::domain::run::valid_run_id(run) {
                return json_error(400, "run id must be 1-64 letters, digits, '-' or '_'");
            }
            return match ledger.open_run(run, wanted) {
                Ok(room) => json(200, &serde_json::json!({ "opened": run, "room": room })),
                Err(why) => json_error(why.status(), &why.of_opening()),
            };
        }
    }
    match UploadTag::of_query(path_and_query) {
        Ok(Some(tag)) => {
            let claim = ledger.take(&tag.run_id, &tag.upload);
            json(200, &serde_json::to_value(claim).expect("claims serialise"))
        }
        Ok(None) => json_error(
            400,
            "name ?run=<run id>&upload=<id>, ?run=<run id>&open=<records> or ?run=<run id>&forget=1",
        ),
        Err(message) => json_error(400, &message),
    }
}

/// The host's side: records claimed from the sink at `url`, on one connection.
pub struct RemoteLedger {
    url: SinkUrl,
    client: Option<Client>,
}

impl RemoteLedger {
    pub fn new(url: SinkUrl) -> RemoteLedger {
        RemoteLedger { url, client: None }
    }

    /// One request on the kept connection; a kept connection that broke since the last
    /// request (the sink closed it while idle) is made again once before the sink counts
    /// as gone.
    fn put(&mut self, query: &str) -> std::io::Result<Vec<u8>> {
        let path = format!("{LEDGER_PREFIX}{}?{query}", self.url.token());
        let kept = self.client.is_some();
        let reply = match self.put_on_connection(&path) {
            Err(e) if kept => {
                log::debug!("claiming from {} again after: {e}", self.url.origin());
                self.put_on_connection(&path)?
            }
            other => other?,
        };
        match reply.status {
            200 => Ok(reply.body),
            other => Err(std::io::Error::other(format!(
                "the sink answered HTTP {other}"
            ))),
        }
    }

    /// Opens `run_id` on the remote sink with room for `records` uploads, before any of
    /// them: the sink keeps records only for runs opened so.
    pub fn open_run(&mut self, run_id: &str, records: u64) -> std::io::Result<()> {
        self.put(&format!("run={run_id}&open={records}"))
            .map(|_| ())
    }

    /// The sink is there and presents the pinned certificate: before a run starts, so
    /// no run is recorded that could not be judged. The connection is kept for claims.
    pub fn check(&mut self) -> Result<(), super::pinned::ReachError> {
        if self.client.is_none() {
            self.client = Some(Client::connect_sink(&self.url)?.0);
        }
        Ok(())
    }

    pub fn url(&self) -> &SinkUrl {
        &self.url
    }

    fn put_on_connection(&mut self, path: &str) -> std::io::Result<super::ceiling::Reply> {
        let client = match &mut self.client {
            Some(client) => client,
            None => self.client.insert(Client::connect_sink(&self.url)?.0),
        };
        client.put(path, 0, b"").inspect_err(|_| self.client = None)
    }

    /// The run ended: the remote sink may drop its records.
    pub fn forget_run(&mut self, run_id: &str) {
        if let Err(e) = self.put(&format!("run={run_id}&forget=1")) {
            log::warn!(
                "could not tell the remote sink {} that run {run_id} ended: {e}",
                self.url.origin()
            );
        }
    }
}

impl Records for RemoteLedger {
    fn take(&mut self, run_id: &str, upload: &UploadId) -> Claim {
        let claimed = self
            .put(&format!("run={run_id}&upload={upload}"))
            .and_then(|body| serde_json::from_slice(&body).map_err(std::io::Error::other));
        claimed.unwrap_or_else(|e| {
            log::error!(
                "could not claim upload {upload} from the remote sink {}: {e}",
                self.url.origin()
            );
            Claim::Unreachable
        })
    }
}
