//! What the page's own clock said of an upload (`extension/lib/timing.js`): its fetch
//! and, where the browser gives them for the sink's origin, the Resource Timing marks.
//! All in ms from the page's fetch() call (which resolved at the sample's `page_ms`). Page-side figures: used for the phases of an
//! upload (`report::phases`), never for what arrived.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PageTiming {
    /// Resource Timing `requestStart`: the browser began sending the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_start_ms: Option<f64>,
    /// Resource Timing `responseStart`: the response's first byte reached the browser.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_start_ms: Option<f64>,
    /// Resource Timing `responseEnd`: the reply's body (the digest) was in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_end_ms: Option<f64>,
}
