//! Store lines as hosts wrote them, for tests that build big stores without a browser.

use serde_json::{json, Value};

pub fn run_record(run_id: &str) -> Value {
    json!({"kind": "run", "run_id": run_id, "browser": "Chromium", "browser_version": "156",
        "os": "Linux", "extension_version": "0.1.0", "source": "job",
        "started_at": "2026-12-01T00:00:00Z", "host_version": "0.1.0",
        "recorded_at": "2026-12-01T00:00:00Z",
        "plan": {"size_bytes": 1024, "reps": 20000, "warmup": 0, "bodies": ["Uint8Array", "Blob"]}})
}

pub fn sample(run_id: &str, body: &str, rep: u32, mbps: f64) -> Value {
    json!({"kind": "sample", "run_id": run_id, "body": body, "rep": rep, "bytes_sent": 1024,
        "bytes_received": 1024, "sha256_sent": "a", "sha256_received": "a", "intact": true,
        "status": "ok", "error": null, "page_ms": 1.0, "sink_ms": 0.9, "mbps": mbps,
        "observed": {"webdriver": false}, "arm": {"kind": "body", "body": body}})
}
