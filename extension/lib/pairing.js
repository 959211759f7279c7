// Pairs what the page meant to send with what the sink says it received, and gives the
// sample a provisional status for the page's own log. The host decides the stored one:
// it takes the received side from its sink's record under `upload_id`, never from here.
import { SAMPLE_ERROR, SAMPLE_STATUS } from './names.js';

/**
 * @param {object} a
 * @param {string} a.body       body kind
 * @param {string} a.uploadId   the id this upload was sent under (`lib/upload-id.js`)
 * @param {number} a.rep
 * @param {number} a.bytesSent
 * @param {string} a.shaSent    hex SHA-256 of the intended bytes
 * @param {number} a.pageMs     fetch call to the response headers (the sink's last byte)
 * @param {object|null} a.reply the sink's JSON reply, when there was one
 * @param {number|null} a.httpStatus
 * @param {string|null} a.rejection the browser's words when fetch() rejected (`Name: message`)
 * @param {object} a.observed   evidence about being watched
 */
export function pairSample({ body, rep, uploadId, bytesSent, shaSent, pageMs, reply, httpStatus, rejection, observed }) {
  const sample = {
    body,
    rep,
    upload_id: uploadId,
    bytes_sent: bytesSent,
    bytes_received: reply?.bytes ?? null,
    sha256_sent: shaSent,
    sha256_received: reply?.sha256 ?? null,
    intact: false,
    status: SAMPLE_STATUS.error,
    error: null,
    page_ms: pageMs ?? null,
    sink_ms: reply?.sink_ms ?? null,
    sink_request_ms: reply?.request_ms ?? null,
    mbps: null,
    head: reply?.head ?? null,
    content_type: reply?.content_type ?? null,
    observed: observed ?? { webdriver: null },
    hash_bound: reply?.hash_bound === true,
    // What the upload arrived over, as the sink saw it: "http/1.1" or "h2" (TLS sinks).
    protocol: reply?.protocol ?? null,
  };
  const failed = failure({ bytesSent, shaSent, reply, httpStatus, rejection });
  if (failed) return { ...sample, ...failed };
  return { ...sample, intact: true, status: SAMPLE_STATUS.ok, mbps: mbps(bytesSent, pageMs) };
}

/**
 * What went wrong, typed: a status, an `error` kind (SAMPLE_ERROR) and its numbers or
 * the browser's words in their own fields; null when the sink's figures match. Words
 * for it are words.js's (`sampleErrorText`).
 */
function failure({ bytesSent, shaSent, reply, httpStatus, rejection }) {
  // fetch() rejected: the browser refused this kind of body (e.g. a stream over HTTP/1.1).
  if (rejection) return { status: SAMPLE_STATUS.unsupported, error: SAMPLE_ERROR.fetchRejected, rejection };
  if (httpStatus !== 200) return { status: SAMPLE_STATUS.error, error: SAMPLE_ERROR.sinkStatus, http_status: httpStatus ?? null };
  if (!reply) return { status: SAMPLE_STATUS.error, error: SAMPLE_ERROR.noReply };
  if (reply.bytes === bytesSent && reply.sha256 === shaSent) return null;
  return { status: SAMPLE_STATUS.corrupted, error: SAMPLE_ERROR.differentBytes };
}

export function mbps(bytes, ms) {
  return ms > 0 ? (bytes * 8) / (ms / 1000) / 1e6 : null;
}
