//! A workload module's requests: whole bodies and parts at offsets (`/m/…`), and the
//! tus 1.0 protocol, core plus creation (`/tus/…`: POST, HEAD, PATCH, OPTIONS). Each
//! body goes through the hash queue like any upload, is committed to the ledger as a
//! part at its offset when its last byte is in (so the reply, and a tus HEAD, see the new
//! offset at once), and its digest follows off the timed path. Nothing here judges: the
//! host checks the parts against the bytes it knows the module was given.
// Each error here is the reply itself, sent at once (as in `recording.rs`).
#![allow(clippy::result_large_err)]

use super::handler::{declared_length, linger, read_body};
use super::ledger::{Ledger, ModuleRefused, UploadTag};
use super::reply::{empty, json, json_error, Reply};
use super::routes::Route;
use super::timeline::Recorder;
use super::Shared;
use crate::domain::upload_id::UploadId;
use crate::platform::untrusted::Clipped;
use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use std::sync::Arc;
use std::time::Instant;

pub const TUS_VERSION: &str = "1.0.0";
const TUS_CONTENT_TYPE: &str = "application/offset+octet-stream";

/// Which protocol a part arrives by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    Put,
    Patch,
}

fn refused(why: ModuleRefused, tag: &UploadTag) -> Reply {
    let mut reply = json_error(why.status(), &why.message(&tag.upload));
    if let ModuleRefused::WrongOffset { expected } = why {
        reply.headers_mut().insert(
            "upload-offset",
            expected.to_string().parse().expect("digits"),
        );
    }
    reply
}

/// A module route whose token was checked.
pub(super) async fn answer(req: Request<Incoming>, shared: &Shared, route: Route<'_>) -> Reply {
    let (run_id, upload) = match route {
        Route::Module { run_id, upload, .. } | Route::Tus { run_id, upload, .. } => {
            (run_id, upload)
        }
        _ => return json_error(404, "not found"),
    };
    let tag = match UploadTag::new(run_id, upload) {
        Ok(tag) => tag,
        Err(message) => return json_error(400, &message),
    };
    match (route, req.method()) {
        (Route::Module { offset, .. }, &Method::PUT | &Method::POST) => {
            put(req, shared, tag, offset).await
        }
        (Route::Tus { .. }, _) => tus(req, shared, tag).await,
        _ => json_error(405, "method not allowed"),
    }
}

/// `/m/<token>/<run>/<upload>[/<offset>]`: a whole body or one part of it.
async fn put(req: Request<Incoming>, shared: &Shared, tag: UploadTag, offset: u64) -> Reply {
    match shared.ledger.begin_part(&tag, offset) {
        Ok(room) => receive(req, shared, tag, offset, room, Via::Put).await,
        Err(why) => {
            linger(req.into_body());
            refused(why, &tag)
        }
    }
}

/// Undoes a begun part whose request went away before its body ended.
struct Begun {
    ledger: Arc<Ledger>,
    upload: Option<UploadId>,
}

impl Drop for Begun {
    fn drop(&mut self) {
        if let Some(upload) = self.upload.take() {
            self.ledger.abandon_part(&upload);
        }
    }
}

/// Receives a begun part's body (at most `room` bytes), commits it and answers at its
/// last byte; the digest follows into the ledger.
async fn receive(
    req: Request<Incoming>,
    shared: &Shared,
    tag: UploadTag,
    offset: u64,
    room: u64,
    via: Via,
) -> Reply {
    let mut begun = Begun {
        ledger: shared.ledger.clone(),
        upload: Some(tag.upload.clone()),
    };
    let path = format!("{}/{} at {offset}", tag.run_id, tag.upload);
    if let Some(n) = declared_length(&req).filter(|&n| n > room) {
        linger(req.into_body());
        shared.ledger.overran_part(&tag.upload);
        return json_error(
            413,
            &format!("a body of {n} bytes at {offset} is past the {room} bytes left"),
        );
    }
    let request_start = Instant::now();
    let mut hasher = shared.hash_queue.start();
    let body = req.into_body();
    let got = match read_body(body, shared, &path, request_start, &mut hasher, room).await {
        Ok(got) => got,
        Err(over_cap) => {
            shared.ledger.overran_part(&tag.upload);
            return over_cap;
        }
    };
    begun.upload = None;
    let after = shared.ledger.commit_part(
        &tag.upload,
        offset,
        got.bytes,
        got.timeline.map(Recorder::finish),
    );
    if got.bytes > 0 {
        digest_follows(shared, hasher, &tag.upload, (offset, got.bytes));
    }
    if let Some(why) = &got.failure {
        log::info!(
            "module upload {}: {} bytes, then {why}",
            Clipped(path.as_str()),
            got.bytes
        );
        return json_error(
            400,
            &format!("upload stopped after {} bytes: {why}", got.bytes),
        );
    }
    answer_part(via, offset, got.bytes, after)
}

/// A part's answer at its last byte: its offset and size (PUT), or tus's new offset (PATCH).
fn answer_part(via: Via, offset: u64, bytes: u64, after: u64) -> Reply {
    match via {
        Via::Put => json(
            200,
            &serde_json::json!({ "offset": offset, "bytes": bytes }),
        ),
        Via::Patch => tus_reply(204)
            .header("upload-offset", after)
            .body(empty())
            .unwrap(),
    }
}

/// The part's digest goes into the ledger when its hasher is done, off the timed path.
fn digest_follows(
    shared: &Shared,
    hasher: super::hash_queue::BodyHasher,
    upload: &UploadId,
    (offset, bytes): (u64, u64),
) {
    let (ledger, upload) = (shared.ledger.clone(), upload.clone());
    let (_, digest) = hasher.finish();
    tokio::spawn(async move {
        if let Ok(d) = digest.await {
            let r = d.finish(0.0, false);
            ledger.part_digested(&upload, (offset, bytes), r.sha256, r.head);
        }
    });
}

fn tus_reply(status: u16) -> hyper::http::response::Builder {
    Response::builder()
        .status(status)
        .header("tus-resumable", TUS_VERSION)
        .header("cache-control", "no-store")
}

fn header<'a>(req: &'a Request<Incoming>, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// A tus request header that must hold a number.
fn number(req: &Request<Incoming>, name: &str) -> Result<u64, Reply> {
    header(req, name)
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| json_error(400, &format!("tus needs a {name} header of digits")))
}

/// tus OPTIONS: what this server speaks.
pub(super) fn tus_options(shared: &Shared) -> Reply {
    tus_reply(204)
        .header("tus-version", TUS_VERSION)
        .header("tus-extension", "creation")
        .header("tus-max-size", shared.max_body)
        .body(empty())
        .unwrap()
}

/// `/tus/<token>/<run>/<upload>`: creation (POST), HEAD and PATCH.
async fn tus(req: Request<Incoming>, shared: &Shared, tag: UploadTag) -> Reply {
    if header(&req, "tus-resumable").is_some_and(|v| v != TUS_VERSION) {
        linger(req.into_body());
        return tus_reply(412)
            .header("tus-version", TUS_VERSION)
            .body(empty())
            .unwrap();
    }
    let answer = match *req.method() {
        Method::POST => tus_create(&req, shared, &tag),
        Method::HEAD => tus_head(shared, &tag),
        Method::PATCH => return tus_patch(req, shared, tag).await,
        _ => json_error(405, "tus takes POST, HEAD, PATCH and OPTIONS"),
    };
    linger(req.into_body());
    answer
}

fn tus_create(req: &Request<Incoming>, shared: &Shared, tag: &UploadTag) -> Reply {
    if header(req, "upload-defer-length").is_some() {
        return json_error(400, "this server needs Upload-Length at creation");
    }
    let length = match number(req, "upload-length") {
        Ok(n) => n,
        Err(reply) => return reply,
    };
    match shared.ledger.create_tus(tag, length) {
        Ok(()) => tus_reply(201)
            .header("location", req.uri().path())
            .body(empty())
            .unwrap(),
        Err(why) => refused(why, tag),
    }
}

fn tus_head(shared: &Shared, tag: &UploadTag) -> Reply {
    match shared.ledger.tus_state(tag) {
        Ok((offset, length)) => tus_reply(200)
            .header("upload-offset", offset)
            .header("upload-length", length)
            .body(empty())
            .unwrap(),
        Err(why) => refused(why, tag),
    }
}

async fn tus_patch(req: Request<Incoming>, shared: &Shared, tag: UploadTag) -> Reply {
    let checked = if header(&req, "content-type") != Some(TUS_CONTENT_TYPE) {
        Err(json_error(
            415,
            &format!("a tus PATCH is {TUS_CONTENT_TYPE}"),
        ))
    } else {
        number(&req, "upload-offset")
    };
    let offset = match checked {
        Ok(offset) => offset,
        Err(reply) => {
            linger(req.into_body());
            return reply;
        }
    };
    match shared.ledger.begin_patch(&tag, offset) {
        Ok(room) => receive(req, shared, tag, offset, room, Via::Patch).await,
        Err(why) => {
            linger(req.into_body());
            refused(why, &tag)
        }
    }
}
