import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quantile, summarise, verdict, observedVerdict } from '../lib/stats.js';

const s = (body, mbps, status = 'ok', extra = {}) => ({ body, mbps, status, observed: { webdriver: false }, ...extra });

test('quantiles interpolate like the host (R-7)', () => {
  assert.equal(quantile([1, 3, 5, 7], 0.5), 4);
  assert.equal(quantile([1, 3, 5, 7], 0.25), 2.5);
  assert.equal(quantile([], 0.5), null);
});

test('summary per arm in plan order, intact samples only', () => {
  const arms = summarise([s('U8', 100), s('Blob', 900), s('U8', 300), s('U8', 200), s('Blob', 1, 'corrupted', { bytes_received: 5, head: 'hello' })]);
  assert.deepEqual(arms.map((a) => a.body), ['U8', 'Blob']);
  assert.equal(arms[0].median_mbps, 200);
  assert.equal(arms[0].min_mbps, 100);
  assert.equal(arms[0].max_mbps, 300);
  assert.equal(arms[1].n, 1);
  assert.deepEqual(arms[1].statuses, { ok: 1, corrupted: 1 });
  assert.equal(arms[1].verdict, 'corrupted: received 5 bytes `hello`');
});

test('control runs split each body kind by condition and report the slowdown', () => {
  const c = (body, condition, mbps) => ({ ...s(body, mbps), condition, observed: { webdriver: false, debugger_attached: condition === 'attached' } });
  const samples = [c('U8', 'attached', 100), c('U8', 'detached', 1800), c('U8', 'attached', 110), c('U8', 'detached', 2000)];
  assert.deepEqual(summarise(samples).map((a) => a.body), ['U8 (attached)', 'U8 (detached)']);
  assert.equal(observedVerdict(samples), 'yes', 'a control run had a debugger attached half the time');
});

test('verdicts in words', () => {
  assert.equal(verdict([s('A', 1)]), 'intact');
  assert.equal(verdict([s('A', null, 'unsupported', { error: 'TypeError: Failed to fetch' })]), 'unsupported: TypeError: Failed to fetch');
  assert.equal(verdict([]), 'no samples');
});

test('observed is yes if anything saw a watcher, no only if every sample saw none', () => {
  assert.equal(observedVerdict([s('A', 1)]), 'no');
  assert.equal(observedVerdict([s('A', 1), { ...s('A', 1), observed: { webdriver: true } }]), 'yes');
  assert.equal(observedVerdict([{ ...s('A', 1), observed: {} }]), 'unknown');
  assert.equal(observedVerdict([]), 'unknown');
});
