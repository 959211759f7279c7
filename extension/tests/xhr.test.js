import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xhrUpload, XHR_BODIES } from '../lib/xhr.js';

/** A scripted XMLHttpRequest: `script(xhr)` plays the network once send() is called. */
function fakeXhr(script) {
  const seen = { sentWithProgressListener: null };
  class FakeXHR {
    static HEADERS_RECEIVED = 2;
    constructor() {
      this.upload = {};
      this.readyState = 0;
    }
    open(method, url) {
      this.method = method;
      this.url = url;
    }
    send(body) {
      seen.sentWithProgressListener = typeof this.upload.onprogress === 'function';
      this.body = body;
      queueMicrotask(() => script(this));
    }
  }
  return { FakeXHR, seen };
}

test('the span ends at the response headers; the digest is read after', async () => {
  let clock = 0;
  const { FakeXHR, seen } = fakeXhr((x) => {
    clock = 5;
    x.upload.onprogress({ loaded: 4, total: 8, lengthComputable: true });
    clock = 10;
    x.upload.onprogress({ loaded: 8, total: 8, lengthComputable: true });
    x.readyState = 2;
    x.status = 200;
    x.onreadystatechange();
    clock = 30; // the digest arrives later
    x.responseText = '{"sha256":"ab"}';
    x.readyState = 4;
    x.onreadystatechange();
    x.onload();
  });
  const seenProgress = [];
  const r = await xhrUpload('http://sink/upload', new Uint8Array(8), { XHR: FakeXHR, now: () => clock, onProgress: (l, t) => seenProgress.push([l, t]) });
  assert.equal(r.pageMs, 10);
  assert.equal(r.status, 200);
  assert.equal(r.failed, null);
  assert.deepEqual(seenProgress, [[4, 8], [8, 8]]);
  assert.equal(r.progress.events, 2);
  assert.deepEqual(await r.reply, { sha256: 'ab' });
  assert.ok(seen.sentWithProgressListener, 'upload.onprogress is set before send(), or browsers report no progress');
});

test('a request that fails before any response is an error, with no reply', async () => {
  for (const type of ['error', 'abort', 'timeout']) {
    const { FakeXHR } = fakeXhr((x) => x[`on${type}`]({ type }));
    const r = await xhrUpload('http://elsewhere/', new Blob(['x']), { XHR: FakeXHR, now: () => 0 });
    assert.equal(r.failed, type, 'the DOM event that said so');
    assert.equal(r.status, null);
    assert.equal(await r.reply, null);
  }
});

test('XHR arms are the body kinds send() uploads as bytes', () => {
  assert.deepEqual(XHR_BODIES, ['Uint8Array', 'ArrayBuffer', 'Blob']);
});
