import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pairSample, mbps } from '../lib/pairing.js';
import { SAMPLE_ERROR } from '../lib/names.js';

const base = { body: 'Blob', rep: 0, bytesSent: 1000, shaSent: 'aa', pageMs: 8, httpStatus: 200, rejection: null, observed: { webdriver: false } };

test('intact when length and hash both match', () => {
  const s = pairSample({ ...base, reply: { bytes: 1000, sha256: 'aa', sink_ms: 7, head: 'x' } });
  assert.equal(s.status, 'ok');
  assert.equal(s.intact, true);
  assert.equal(s.mbps, 1);
  assert.equal(s.sink_ms, 7);
});

test('a hash mismatch with the right length is corrupted', () => {
  const s = pairSample({ ...base, reply: { bytes: 1000, sha256: 'bb' } });
  assert.equal(s.status, 'corrupted');
  assert.equal(s.error, SAMPLE_ERROR.differentBytes);
  assert.equal(s.intact, false);
  assert.equal(s.mbps, null, 'no speed for the wrong bytes');
});

test('fewer bytes with the right hash is corrupted too', () => {
  const s = pairSample({ ...base, reply: { bytes: 999, sha256: 'aa' } });
  assert.deepEqual([s.status, s.error, s.bytes_received], ['corrupted', SAMPLE_ERROR.differentBytes, 999]);
});

test("Firefox's stringified stream body is corrupted, with what arrived", () => {
  const s = pairSample({
    ...base,
    body: 'ReadableStream',
    reply: { bytes: 23, sha256: '7559c3628a54a498b715edbbb9a0f16fc65e94eaaf185b41e91f6bddf1a8e02e', head: '[object ReadableStream]', content_type: 'text/plain;charset=UTF-8' },
  });
  assert.equal(s.status, 'corrupted');
  assert.equal(s.bytes_received, 23);
  assert.equal(s.head, '[object ReadableStream]');
});

test("a rejected fetch is unsupported, typed, with the browser's own words beside", () => {
  const s = pairSample({ ...base, body: 'ReadableStream', reply: null, httpStatus: null, rejection: 'TypeError: Failed to fetch' });
  assert.equal(s.status, 'unsupported');
  assert.equal(s.error, SAMPLE_ERROR.fetchRejected);
  assert.equal(s.rejection, 'TypeError: Failed to fetch');
  assert.equal(s.intact, false);
});

test('an HTTP error from the sink is an error of kind sink-status, with the status as a number', () => {
  const s = pairSample({ ...base, httpStatus: 413, reply: { error: 'too big' } });
  assert.equal(s.status, 'error');
  assert.equal(s.error, SAMPLE_ERROR.sinkStatus);
  assert.equal(s.http_status, 413);
  assert.equal(s.mbps, null);
});

test('a 200 whose answer could not be read is an error of kind no-reply', () => {
  const s = pairSample({ ...base, reply: null });
  assert.deepEqual([s.status, s.error, s.http_status], ['error', SAMPLE_ERROR.noReply, undefined]);
});

test('an intact sample carries no error', () => {
  const s = pairSample({ ...base, reply: { bytes: 1000, sha256: 'aa' } });
  assert.deepEqual([s.error, s.rejection, s.http_status], [null, undefined, undefined]);
});

test('mbps is megabits per second', () => {
  assert.equal(mbps(125000, 1000), 1);
  assert.equal(mbps(1, 0), null);
});

test('a sample records the protocol the sink saw the upload arrive over', () => {
  assert.equal(pairSample({ ...base, reply: { bytes: 1000, sha256: 'aa', protocol: 'h2' } }).protocol, 'h2');
  assert.equal(pairSample({ ...base, reply: null, rejection: 'TypeError: Failed to fetch' }).protocol, null);
});
