// Every upload carries an id, so the host can look up what its sink received under it
// and store that, not the page's word. The rule for a valid id and for a parallel
// upload's stream ids is the host's too (host/src/sink/upload_id.rs); both suites read
// tests/fixtures/upload-ids.json.
import { toHex } from './bodies.js';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

export function isUploadId(id) {
  return typeof id === 'string' && VALID.test(id);
}

/** 32 random hex digits: getRandomValues works in a plain-http page, randomUUID not. */
export function newUploadId() {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

/** The id of stream `index` of the parallel upload `id`, or null when too long. */
export function streamUploadId(id, index) {
  const stream = `${id}-s${index}`;
  return isUploadId(stream) ? stream : null;
}

/** `url` with the run and upload it names: `?run=<run id>&upload=<upload id>`. */
export function withUpload(url, runId, uploadId) {
  const u = new URL(url);
  u.searchParams.set('run', runId);
  u.searchParams.set('upload', uploadId);
  return u.toString();
}
