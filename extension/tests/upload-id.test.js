import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isUploadId, newUploadId, streamUploadId, withUpload } from '../lib/upload-id.js';

const fixture = JSON.parse(readFileSync(new URL('../../tests/fixtures/upload-ids.json', import.meta.url), 'utf8'));

test('ids are checked as the host checks them', () => {
  for (const id of fixture.valid) assert.ok(isUploadId(id), id);
  for (const id of fixture.invalid) assert.ok(!isUploadId(id), id);
});

test("a parallel upload's stream ids are derived as the host derives them", () => {
  for (const c of fixture.streams) assert.equal(streamUploadId(c.id, c.index), c.stream, JSON.stringify(c));
});

test('a new id is valid and fresh each time', () => {
  const a = newUploadId();
  assert.ok(isUploadId(a));
  assert.notEqual(a, newUploadId());
});

test('the upload URL names the run and the upload, keeping its other parameters', () => {
  const u = new URL(withUpload('http://127.0.0.1:9/upload/tok?arm=Blob&rep=0', 'r-1', 'u1'));
  assert.equal(u.pathname, '/upload/tok');
  assert.equal(u.searchParams.get('arm'), 'Blob');
  assert.equal(u.searchParams.get('run'), 'r-1');
  assert.equal(u.searchParams.get('upload'), 'u1');
});
