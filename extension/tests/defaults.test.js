import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AFTER_RUN, DEFAULT_OPTIONS, planFromOptions, validateOptions, BODY_KINDS } from '../lib/defaults.js';

test('the default suite is 32 MiB x 6 reps of all four kinds', () => {
  assert.deepEqual(planFromOptions({}), { size_bytes: 32 * 1024 * 1024, reps: 6, warmup: 1, bodies: BODY_KINDS, transports: ['h1'] });
  assert.deepEqual(BODY_KINDS, ['Uint8Array', 'ArrayBuffer', 'Blob', 'ReadableStream']);
});

test('bad options are refused with a sentence each', () => {
  assert.deepEqual(validateOptions(DEFAULT_OPTIONS), []);
  const errors = validateOptions({ sizeMiB: 0, reps: 1.5, warmup: -1, bodies: [], sinkUrl: 'ftp://x' });
  assert.equal(errors.length, 5);
  assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, sinkUrl: 'http://10.0.0.2:8080/upload/abc123' }), []);
  assert.equal(validateOptions({ ...DEFAULT_OPTIONS, afterRun: 'vanish' }).length, 1);
  for (const afterRun of Object.keys(AFTER_RUN)) assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, afterRun }), []);
});

test('transports: at least one, and TLS ones only with the local sink', () => {
  assert.deepEqual(planFromOptions({ transports: ['h1', 'h2', 'h9'] }).transports, ['h1', 'h2']);
  assert.equal(validateOptions({ ...DEFAULT_OPTIONS, transports: [] }).length, 1);
  assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, transports: ['h1', 'h1-tls', 'h2'] }), []);
  assert.equal(validateOptions({ ...DEFAULT_OPTIONS, transports: ['h2'], sinkUrl: 'http://10.0.0.2:8080/upload/abc123' }).length, 1);
});
