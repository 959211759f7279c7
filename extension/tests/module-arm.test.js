// A workload module's failure leaves the page typed: `module-failed` with its kind and
// numbers in `module_failure`, the module's own words (when it threw) in `rejection`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runModule } from '../bench/module-arm.js';
import { MODULE_FAILURE, NOT_LOADED, SAMPLE_ERROR, SAMPLE_STATUS } from '../lib/names.js';

const routes = { uploadId: 'u1', url: 'http://127.0.0.1:1/m', partUrl: () => '', tusEndpoint: '' };
const run = (loaded, blocked = [], timeoutMs = 1000) => runModule(loaded, { bytes: new Uint8Array(4), rep: 0, routes, key: null, timeoutMs, blocked }).then((r) => r.sample);
const failed = (s) => [s.status, s.error];

test('a module that settles is ok, with no failure', async () => {
  const s = await run({ run: async () => {} });
  assert.deepEqual([s.status, s.error, s.module_failure, s.rejection], [SAMPLE_STATUS.ok, null, null, undefined]);
});

test("a module that throws is module-failed, its own words in rejection", async () => {
  const s = await run({ run: async () => { throw new TypeError('no route'); } });
  assert.deepEqual(failed(s), [SAMPLE_STATUS.error, SAMPLE_ERROR.moduleFailed]);
  assert.deepEqual([s.module_failure, s.rejection], [{ kind: MODULE_FAILURE.threw }, 'TypeError: no route']);
});

test('a module that never settles is timed out, with the timeout as a number', async () => {
  const s = await run({ run: () => new Promise(() => {}) }, [], 30);
  assert.deepEqual(failed(s), [SAMPLE_STATUS.error, SAMPLE_ERROR.moduleFailed]);
  assert.deepEqual([s.module_failure, s.rejection], [{ kind: MODULE_FAILURE.timedOut, timeout_ms: 30 }, undefined]);
});

test('a module not loaded keeps its cause and the import\'s words', async () => {
  const failure = { kind: MODULE_FAILURE.notLoaded, cause: NOT_LOADED.importFailed };
  const s = await run({ failure, words: 'TypeError: Failed to fetch dynamically imported module' });
  assert.deepEqual(failed(s), [SAMPLE_STATUS.error, SAMPLE_ERROR.moduleFailed]);
  assert.deepEqual([s.module_failure, s.rejection], [failure, 'TypeError: Failed to fetch dynamically imported module']);
});

test("a request the page's policy refused makes the failure blocked, with its directive and URL", async () => {
  const blocked = [];
  const s = await run({ run: async () => { blocked.push({ directive: 'connect-src', url: 'http://127.0.0.1:9/collect' }); throw new TypeError('Failed to fetch'); } }, blocked);
  assert.deepEqual(s.module_failure, { kind: MODULE_FAILURE.blocked, directive: 'connect-src', url: 'http://127.0.0.1:9/collect' });
  assert.deepEqual([s.error, s.rejection], [SAMPLE_ERROR.moduleFailed, 'TypeError: Failed to fetch']);
});
