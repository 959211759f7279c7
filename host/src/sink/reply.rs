//! The sink's replies and the bodies they are built from. Its own module so that both
//! the request handler and the CORS rules can build them without depending on each other.

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Empty, Full};
use hyper::{Response, StatusCode};
use std::convert::Infallible;

pub type Reply = Response<BoxBody<Bytes, Infallible>>;

/// Headers the sink sends at the last body byte, before the digest is known.
pub const HEADER_BYTES: &str = "x-unobserved-bytes";
pub const HEADER_SINK_MS: &str = "x-unobserved-sink-ms";
pub const HEADER_HASH_BOUND: &str = "x-unobserved-hash-bound";
pub const EXPOSED_HEADERS: &str =
    "x-unobserved-bytes, x-unobserved-sink-ms, x-unobserved-hash-bound";

pub fn empty() -> BoxBody<Bytes, Infallible> {
    Empty::new().boxed()
}

pub fn full(b: Bytes) -> BoxBody<Bytes, Infallible> {
    Full::new(b).boxed()
}

pub fn json(status: u16, body: &serde_json::Value) -> Reply {
    Response::builder()
        .status(StatusCode::from_u16(status).expect("valid status"))
        .header("content-type", "application/json")
        .header("cache-control", "no-store")
        .body(full(Bytes::from(serde_json::to_vec(body).expect("json"))))
        .unwrap()
}

pub fn json_error(status: u16, message: &str) -> Reply {
    json(status, &serde_json::json!({ "error": message }))
}
