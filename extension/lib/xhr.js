// An upload through XMLHttpRequest, as upload libraries make it: `upload.onprogress`
// listened to (a listener on the upload object is what makes a browser report upload
// progress at all), the body handed to send(). Its timed span ends where fetch()'s
// does: when the response headers arrive (readyState HEADERS_RECEIVED), which the
// sink sends at the body's last byte; the reply's body (the digest) is read after.

/** Body kinds XMLHttpRequest.send() uploads as bytes; it would stringify a stream. */
export const XHR_BODIES = ['Uint8Array', 'ArrayBuffer', 'Blob'];

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * PUTs `body` to `url`. Resolves at the response headers with `{ pageMs, status,
 * reply, progress }` (`reply`: a promise of the parsed JSON body, or null), or with
 * `{ pageMs, failed }` when the request failed before any response (`failed`: the DOM
 * event that said so, `error`, `abort` or `timeout`).
 * `onProgress(loaded, total)` sees every upload progress event.
 */
export function xhrUpload(url, body, { method = 'PUT', onProgress = () => {}, XHR = globalThis.XMLHttpRequest, now = () => performance.now() } = {}) {
  return new Promise((resolve) => {
    const xhr = new XHR();
    let t0 = 0;
    let settled = false;
    const progress = { events: 0, loaded: 0 };
    let bodyDone;
    const reply = new Promise((r) => (bodyDone = r));
    const finish = (result) => {
      if (settled) return;
      settled = true;
      resolve({ pageMs: now() - t0, progress, ...result });
    };
    xhr.upload.onprogress = (e) => {
      progress.events += 1;
      progress.loaded = e.loaded;
      onProgress(e.loaded, e.lengthComputable ? e.total : null);
    };
    xhr.onreadystatechange = () => {
      if (xhr.readyState === XHR.HEADERS_RECEIVED) finish({ status: xhr.status, reply, failed: null });
    };
    xhr.onload = () => {
      const parsed = parseJson(xhr.responseText);
      // A reply with no separate headers event (some engines skip straight to DONE).
      finish({ status: xhr.status, reply, failed: null });
      bodyDone(parsed);
    };
    const failed = (event) => {
      finish({ status: null, reply: Promise.resolve(null), failed: event.type });
      bodyDone(null);
    };
    xhr.onerror = failed;
    xhr.onabort = failed;
    xhr.ontimeout = failed;
    xhr.open(method, url);
    t0 = now();
    xhr.send(body);
  });
}
