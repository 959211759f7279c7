// The write-up's workloads, as arms of a run: an AES-256-GCM encrypted file uploaded as
// sequential chunk PUTs (serial or pipelined), a streamed download the page verifies,
// and parallel uploads. Each returns one sample-like result per arm and rep.
import { randomBytes, sha256Hex, toHex } from '../lib/bodies.js';
import { mbps } from '../lib/pairing.js';
import { newUploadId, streamUploadId, withUpload } from '../lib/upload-id.js';
import { median } from '../lib/stats.js';
import { SAMPLE_ERROR, SAMPLE_STATUS } from '../lib/names.js';

/**
 * What a workload arm needs to run: its own fields (the host's typed arm) and the
 * plan's sizes. Every other arm is a body kind.
 */
export function workloadOf(arm, plan) {
  const w = plan.workloads ?? {};
  switch (arm.kind) {
    case 'encrypted':
      return { kind: 'encrypted', fileBytes: w.encrypted.file_bytes, chunkBytes: arm.chunk_bytes, schedule: arm.schedule };
    case 'download':
      return { kind: 'download', bytes: w.download.bytes };
    case 'parallel':
      return { kind: 'parallel', bytes: w.parallel.bytes, streams: arm.streams };
    default:
      return null;
  }
}

/** Where the chunk and download routes are, from the upload URL .../upload/<token>. */
export function sinkRoutes(uploadUrl) {
  const u = new URL(uploadUrl);
  const token = u.pathname.split('/').pop();
  return { base: u.origin, token };
}

async function digestOfDigests(hexes) {
  return sha256Hex(new TextEncoder().encode(hexes.join('')));
}

/**
 * One encrypted file upload. Client work per chunk = generate + encrypt (what the app
 * does); the page's own verification hashing is timed apart and left out of the total.
 */
export async function encryptedUpload(w, ctx) {
  const { fileBytes, chunkBytes, schedule } = w;
  const chunks = Math.ceil(fileBytes / chunkBytes);
  const uploadId = newUploadId();
  const ivPrefix = crypto.getRandomValues(new Uint8Array(4));
  const clientMs = [];
  const putMs = [];
  const sentShas = [];
  const replies = [];
  let verifyMs = 0;

  const prepare = async (index) => {
    const t0 = performance.now();
    const plain = randomBytes(Math.min(chunkBytes, fileBytes - index * chunkBytes));
    // A unique 12-byte IV per chunk: 4 random bytes per upload, then the chunk index.
    const iv = new Uint8Array(12);
    iv.set(ivPrefix);
    new DataView(iv.buffer).setBigUint64(4, BigInt(index));
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, ctx.key, plain));
    clientMs.push(performance.now() - t0);
    const v0 = performance.now();
    sentShas[index] = await sha256Hex(plain);
    verifyMs += performance.now() - v0;
    const body = new Uint8Array(12 + sealed.length);
    body.set(iv);
    body.set(sealed, 12);
    return body;
  };
  const put = async (index, body) => {
    const t0 = performance.now();
    const res = await fetch(`${ctx.base}/chunk/${ctx.token}/${ctx.runId}/${uploadId}/${index}`, { method: 'PUT', body });
    putMs.push(performance.now() - t0);
    // The sink answers at the chunk's last byte and decrypts afterwards: waiting for
    // its verdict is verification, left out of the timed total like the page's own.
    const v0 = performance.now();
    replies[index] = res.ok ? await res.json() : { tag_ok: false, http_status: res.status };
    verifyMs += performance.now() - v0;
  };

  const start = performance.now();
  await inSchedule(schedule, chunks, prepare, put);
  const totalMs = performance.now() - start - verifyMs;
  return encryptedSample({ uploadId, fileBytes, chunks, totalMs, sentShas, replies, clientMs, putMs });
}

/** Every chunk prepared and PUT, in the schedule's order. */
async function inSchedule(schedule, chunks, prepare, put) {
  if (schedule === 'serial') {
    // Encrypt N+1 only after PUT N resolves: the app's original loop.
    for (let i = 0; i < chunks; i++) await put(i, await prepare(i));
    return;
  }
  // Encrypt N+1 while PUT N is in flight.
  let next = prepare(0);
  for (let i = 0; i < chunks; i++) {
    const body = await next;
    const inFlight = put(i, body);
    if (i + 1 < chunks) next = prepare(i + 1);
    await inFlight;
  }
}

/** The encrypted upload's sample: intact only when every chunk's tag, order, bytes and digest agree. */
async function encryptedSample({ uploadId, fileBytes, chunks, totalMs, sentShas, replies, clientMs, putMs }) {
  const receivedShas = replies.map((r) => r.plaintext_sha256 ?? '');
  const tagsOk = replies.filter((r) => r.tag_ok).length;
  const orderOk = replies.filter((r) => r.order === 'ok').length;
  const received = replies.reduce((n, r) => n + (r.plaintext_bytes ?? 0), 0);
  const intact = tagsOk === chunks && orderOk === chunks && received === fileBytes && receivedShas.every((s, i) => s === sentShas[i]);
  return {
    upload_id: uploadId,
    bytes_sent: fileBytes,
    bytes_received: received,
    sha256_sent: await digestOfDigests(sentShas),
    sha256_received: await digestOfDigests(receivedShas),
    intact,
    status: intact ? SAMPLE_STATUS.ok : SAMPLE_STATUS.corrupted,
    error: intact ? null : SAMPLE_ERROR.differentBytes,
    page_ms: totalMs,
    sink_ms: null,
    mbps: intact ? mbps(fileBytes, totalMs) : null,
    chunks,
    tags_ok: tagsOk,
    client_ms: median(clientMs),
    put_ms: median(putMs),
  };
}

/** The bytes the sink's download route sends: AES-128-CTR keystream of the seed. */
async function expectedDownload(seed, length) {
  const key = await crypto.subtle.importKey('raw', seed, 'AES-CTR', false, ['encrypt']);
  return new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-CTR', counter: new Uint8Array(16), length: 64 }, key, new Uint8Array(length)));
}

/** A download that did not arrive whole, typed: the sink's status when it was not 200. */
function downloadFailure(status) {
  return status === 200 ? { error: SAMPLE_ERROR.differentBytes } : { error: SAMPLE_ERROR.sinkStatus, http_status: status };
}

export async function download(w, ctx) {
  const seed = crypto.getRandomValues(new Uint8Array(16));
  const uploadId = newUploadId();
  const url = withUpload(`${ctx.base}/download/${ctx.token}?bytes=${w.bytes}&seed=${toHex(seed)}`, ctx.runId, uploadId);
  const t0 = performance.now();
  const res = await fetch(url, { cache: 'no-store' });
  const got = new Uint8Array(await res.arrayBuffer());
  const ms = performance.now() - t0;
  const [shaGot, shaExpected] = await Promise.all([sha256Hex(got), expectedDownload(seed, w.bytes).then(sha256Hex)]);
  const intact = res.ok && got.length === w.bytes && shaGot === shaExpected;
  return {
    upload_id: uploadId,
    bytes_sent: w.bytes,
    bytes_received: got.length,
    sha256_sent: shaExpected,
    sha256_received: shaGot,
    intact,
    status: intact ? SAMPLE_STATUS.ok : SAMPLE_STATUS.corrupted,
    error: null,
    ...(intact ? {} : downloadFailure(res.status)),
    page_ms: ms,
    sink_ms: null,
    mbps: intact ? mbps(w.bytes, ms) : null,
  };
}

export async function parallel(w, ctx, bytes, sha) {
  // Each stream is its own upload, under an id derived from the sample's.
  const uploadId = newUploadId();
  const urls = Array.from({ length: w.streams }, (_, i) => withUpload(ctx.uploadUrl, ctx.runId, streamUploadId(uploadId, i)));
  const t0 = performance.now();
  // Timed to the last stream's response headers (the sink sends them at the last body
  // byte); the digests follow in the bodies, after the timed span.
  const responses = await Promise.all(urls.map((url) => fetch(url, { method: 'PUT', body: bytes }).catch(() => null)));
  const ms = performance.now() - t0;
  const replies = await Promise.all(responses.map((r) => (r ? r.json().catch(() => null) : null)));
  const total = w.bytes * w.streams;
  const intact = replies.every((r) => r && r.bytes === w.bytes && r.sha256 === sha);
  return {
    upload_id: uploadId,
    bytes_sent: total,
    bytes_received: replies.reduce((n, r) => n + (r?.bytes ?? 0), 0),
    sha256_sent: sha,
    sha256_received: intact ? sha : replies.find((r) => r?.sha256 !== sha)?.sha256 ?? null,
    intact,
    status: intact ? SAMPLE_STATUS.ok : SAMPLE_STATUS.corrupted,
    error: intact ? null : SAMPLE_ERROR.differentBytes,
    page_ms: ms,
    sink_ms: null,
    mbps: intact ? mbps(total, ms) : null,
  };
}
