//! The workload modules a run's page imports, served by the local sink at
//! `/module/<token>/<run id>/<name>`: exactly the bytes the host read and recorded the
//! SHA-256 of, held in memory for the run and dropped when it ends. A module runs in the
//! page under the page's Content-Security-Policy; its own response carries one too, so a
//! worker started from it can reach only this sink.

use super::reply::{full, json_error, Reply};
use bytes::Bytes;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The policy every module response carries (a worker script's own policy is its
/// response's, not the page's).
pub const MODULE_CSP: &str = "default-src 'self'; connect-src 'self'";

/// A run's modules by name.
type Sources = HashMap<String, Arc<Vec<u8>>>;

#[derive(Default)]
pub struct ModuleSources {
    by_run: Mutex<HashMap<String, Sources>>,
}

impl ModuleSources {
    /// `run_id`'s page may import `source` as `name`.
    pub fn serve(&self, run_id: &str, name: &str, source: Arc<Vec<u8>>) {
        let mut runs = self.by_run.lock().unwrap();
        runs.entry(run_id.to_owned())
            .or_default()
            .insert(name.to_owned(), source);
    }

    /// The run ended: its modules are no longer served.
    pub fn forget(&self, run_id: &str) {
        self.by_run.lock().unwrap().remove(run_id);
    }

    /// The reply to `GET /module/<token>/<run_id>/<name>`.
    pub fn answer(&self, run_id: &str, name: &str) -> Reply {
        let runs = self.by_run.lock().unwrap();
        let Some(source) = runs.get(run_id).and_then(|m| m.get(name)) else {
            return json_error(404, "no such module in this run");
        };
        hyper::Response::builder()
            .header("content-type", "text/javascript; charset=utf-8")
            .header("cache-control", "no-store")
            .header("content-security-policy", MODULE_CSP)
            .header("x-content-type-options", "nosniff")
            .body(full(Bytes::from(source.as_ref().clone())))
            .unwrap()
    }
}
