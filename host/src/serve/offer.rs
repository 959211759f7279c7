//! What `serve` offers a page: the one plan a page may start, and how it starts. A page
//! never sends a plan; it can only take this offer.

use crate::domain::plan::Plan;
use crate::domain::sample::Environment;
use serde::Serialize;

/// How the page starts the offered run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Start {
    /// A person presses Run (it has the keyboard focus, so Enter does it).
    Button,
    /// At once: `unobserved run --browser webkit`, which launched the browser itself.
    Auto,
}

#[derive(Debug, Clone)]
pub struct Offer {
    pub plan: Plan,
    pub start: Start,
    /// The one run `unobserved run` follows: taken once, under this id. Without it,
    /// every start is a new run with a new id.
    pub run_id: Option<String>,
    /// What the launcher knows of the browser better than its user agent does
    /// (WebKitGTK's version is not in it).
    pub env: Option<Environment>,
}
