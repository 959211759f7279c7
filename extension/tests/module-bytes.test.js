import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import { moduleBytes, fromHex } from '../lib/module-bytes.js';

const fixture = JSON.parse(readFileSync(new URL('../../tests/fixtures/module-bytes.json', import.meta.url)));
const hex = (b) => Buffer.from(b).toString('hex');

test('a module is given the host\'s keystream, piece by piece as in one call', async () => {
  for (const c of fixture.cases) {
    const all = await moduleBytes(fixture.seed, c.rep, c.offset + c.len, webcrypto.subtle);
    const part = all.subarray(c.offset, c.offset + c.len);
    assert.equal(hex(part.subarray(0, 16)), c.first16, JSON.stringify(c));
    assert.equal(hex(await webcrypto.subtle.digest('SHA-256', part)), c.sha256, JSON.stringify(c));
  }
});

test('a seed that is not hex is refused', () => {
  assert.throws(() => fromHex('xyz'));
  assert.throws(() => fromHex('abc'));
});
