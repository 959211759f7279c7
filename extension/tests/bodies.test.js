import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, makeBody, sha256Hex } from '../lib/bodies.js';

async function bytesOf(kind, bytes) {
  const { body, init } = makeBody(kind, bytes);
  // Request serialises the body exactly as fetch() would hand it to the network.
  const req = new Request('http://x/', { method: 'PUT', body, ...init });
  return new Uint8Array(await req.arrayBuffer());
}

test('every kind carries exactly the same bytes', async () => {
  const bytes = randomBytes(3 * 1024 * 1024 + 17);
  for (const kind of ['Uint8Array', 'ArrayBuffer', 'Blob', 'ReadableStream']) {
    const sent = await bytesOf(kind, bytes);
    assert.equal(sent.length, bytes.length, kind);
    assert.equal(await sha256Hex(sent), await sha256Hex(bytes), kind);
  }
});

test('stream bodies ask for half duplex', () => {
  assert.deepEqual(makeBody('ReadableStream', new Uint8Array(4)).init, { duplex: 'half' });
  assert.deepEqual(makeBody('Blob', new Uint8Array(4)).init, {});
});

test('random bytes are filled past the 64 KiB getRandomValues limit', () => {
  const bytes = randomBytes(200000);
  const tail = bytes.subarray(190000);
  assert.ok(tail.some((b) => b !== 0), 'the last chunk is random too');
  const distinct = new Set(bytes.subarray(0, 4096)).size;
  assert.ok(distinct > 200, `looks incompressible (${distinct} distinct byte values)`);
});

test('sha256 matches a known vector', async () => {
  assert.equal(await sha256Hex(new TextEncoder().encode('abc')), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

test('unknown kinds are refused', () => {
  assert.throws(() => makeBody('FormData', new Uint8Array(1)), /unknown body kind/);
});

test('without crypto.subtle (no secure context) the digest is the same', async () => {
  const insecure = { getRandomValues: (a) => globalThis.crypto.getRandomValues(a) };
  for (const size of [0, 1, 55, 64, 1024 * 1024 + 17]) {
    const bytes = randomBytes(size);
    assert.equal(await sha256Hex(bytes, insecure), await sha256Hex(bytes), `${size} bytes`);
  }
  assert.equal(await sha256Hex(new Uint8Array(0), insecure), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
});
