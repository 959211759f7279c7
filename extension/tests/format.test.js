import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chartModel, explainHostError, explainRunError, formatMbps, formatRange, progressText } from '../lib/format.js';

test('progress names the arm, the rep and what remains', () => {
  assert.equal(progressText({ done: 5, total: 24, step: { phase: 'measure', rep: 1, body: 'Blob' } }), 'Blob, rep 2 · 5/24 measured · 19 remaining');
  assert.equal(progressText({ done: 0, total: 24, step: { phase: 'warmup', rep: 0, body: 'Uint8Array' } }), 'Uint8Array, warm-up 1 · 0/24 measured · 24 remaining');
  assert.equal(progressText({ done: 0, total: 8 }), 'Starting… 8 uploads to go');
});

test('Mbps formatting', () => {
  assert.equal(formatMbps(1790.4), '1,790');
  assert.equal(formatMbps(12.345), '12.3');
  assert.equal(formatMbps(null), '–');
  assert.equal(formatRange(702.4, 1036), '702–1,036');
  assert.equal(formatRange(null, null), '–', 'an arm with no intact sample has no range');
});

test('chart bars scale to the largest max and label failed arms by verdict', () => {
  const { rows, ceilingX } = chartModel([
    { body: 'Uint8Array', median_mbps: 50, min_mbps: 40, max_mbps: 100, verdict: 'intact' },
    { body: 'ReadableStream', median_mbps: null, min_mbps: null, max_mbps: null, verdict: 'unsupported: TypeError: Failed to fetch' },
  ], 200);
  assert.deepEqual(rows[0], { body: 'Uint8Array', bar: 100, whiskerFrom: 80, whiskerTo: 200, label: '50.0 Mbps', intact: true, sinkBound: false });
  assert.equal(ceilingX, null);
  assert.equal(rows[1].bar, 0);
  assert.equal(rows[1].label, 'unsupported');
  assert.equal(rows[1].intact, false);
});

test('the sink ceiling is a line, and the arms the host called sink-bound are marked', () => {
  const { rows, ceilingX } = chartModel([
    { body: 'Uint8Array', median_mbps: 100, min_mbps: 90, max_mbps: 110, verdict: 'intact' },
    { body: 'Blob', median_mbps: 2900, min_mbps: 2800, max_mbps: 3000, verdict: 'intact' },
  ], 200, 4000, new Set(['Blob']));
  assert.equal(ceilingX, 200, 'the ceiling is the largest value, so it sets the scale');
  assert.equal(rows[1].bar, 145);
  assert.deepEqual(rows.map((r) => r.sinkBound), [false, true]);
});

test('a run that stopped for another reason is not blamed on the host install', () => {
  const e = explainRunError('the extension background stopped mid-run (the browser ended it or it crashed); the run is incomplete', 'Chromium');
  assert.equal(e.what, 'The last run did not finish.');
  assert.doesNotMatch(e.fix, /install/);
  assert.match(explainRunError('Specified native messaging host not found.', 'Chromium').fix, /unobserved install/);
  assert.match(explainRunError('the native host went away: Native host has exited.', 'Chromium').what, /stopped unexpectedly/);
});

test('a missing host is explained with the fix and the browser named', () => {
  const e = explainHostError('Specified native messaging host not found.', 'Chromium');
  assert.match(e.what, /not registered with Chromium/);
  assert.match(e.fix, /unobserved install.*restart Chromium/);
  const ff = explainHostError('No such native application org.unobserved.host', 'Firefox');
  assert.match(ff.what, /not registered with Firefox/);
  const full = explainHostError('host error 10 (store-failed): could not store (nothing was written): No space left on device (os error 28)', 'Chromium');
  assert.match(full.what, /could not save the results/);
  assert.match(full.fix, /Free some disk space/);
  const forbidden = explainHostError('Access to the specified native messaging host is forbidden.', 'Edge');
  assert.match(forbidden.fix, /--extension-id/);
});

test('a result says which plan and run it is', async () => {
  const { resultLabel } = await import('../lib/format.js');
  assert.equal(
    resultLabel({ plan: { size_bytes: 33554432, reps: 6 }, run_id: '20261130-140334-abcd', finished_at: '2026-11-30T14:05:01.000Z' }),
    '32 MiB × 6 reps · run 20261130-140334-abcd · 14:05 UTC',
  );
  assert.equal(resultLabel({ run_id: 'r' }), 'run r', 'an old state without a plan still says which run');
});
