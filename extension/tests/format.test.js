import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { HOST_FAILURE, disconnectFailure, replyFailure } from '../lib/host-failure.js';
import { NOTE, chartModel, explainHostError, explainRunError, integrityFindings, noteText, offerText, progressBar, progressText, tableRows } from '../lib/format.js';
import { comparisonLine, formatComparison, formatRange, formatShare, legendText } from '../lib/words.js';

const FORMATS = JSON.parse(readFileSync(new URL('../../tests/fixtures/formats.json', import.meta.url), 'utf8'));

test('progress names the arm, the rep and what remains', () => {
  assert.equal(progressText({ done: 5, total: 24, step: { phase: 'measure', rep: 1, label: 'Blob', arm: { kind: 'body', body: 'Blob' } } }), 'Blob, rep 2 · 5/24 measured · 19 remaining');
  assert.equal(progressText({ done: 0, total: 24, step: { phase: 'warmup', rep: 0, label: 'Uint8Array h2', arm: { kind: 'body', body: 'Uint8Array', transport: 'h2', condition: 'attached' } } }), 'Uint8Array h2 (debugger attached), warm-up 1 · 0/24 measured · 24 remaining');
  assert.equal(progressText({ done: 0, total: 8 }), 'Starting… 8 uploads to go');
});

test('an auto-sampled run shows how many comparisons are settled and the time left, as the host counted them', () => {
  const plan = { reps: 6, auto: { max_reps: 1000, max_seconds: 60 } };
  const step = { phase: 'measure', rep: 7, label: 'Blob', arm: { kind: 'body', body: 'Blob' } };
  assert.equal(progressText({ done: 30, total: 4000, step, plan }), 'Blob, rep 8 · 30 measured · the first 6 reps, then until every comparison is settled (at most 60 s)');
  const auto = { reps_done: 7, settled: 1, comparisons: 2, seconds_left: 41 };
  assert.equal(progressText({ done: 30, total: 4000, step, plan, auto }), 'Blob, rep 8 · 30 measured · 1 of 2 comparisons settled · 41 s left');
  const settled = FORMATS.comparisons[0].comparison;
  const named = { ...auto, settled_verdicts: [settled] };
  assert.equal(progressText({ done: 30, total: 4000, step, plan, auto: named }), `Blob, rep 8 · 30 measured · 1 of 2 comparisons settled (${comparisonLine(settled)}) · 41 s left`);
  assert.deepEqual(progressBar({ done: 30, total: 4000, plan, auto }), { value: 19, max: 60 }, 'the bar is the time budget');
  assert.deepEqual(progressBar({ done: 5, total: 24, plan: { reps: 6 } }), { value: 5, max: 24 }, 'a fixed plan: its uploads');
  assert.equal(progressText({ done: 0, total: 4000, plan }), 'Starting…');
});

test('an arm with no intact sample has no range', () => {
  assert.equal(formatRange(null, null), '–');
});

// The host's analysis of a run with an intact, a sink-bound and a corrupted arm: the
// host's own test writes and checks this file (report::tests), so the popup is tested
// against what the host really sends.
const analysis = JSON.parse(readFileSync(new URL('../../tests/fixtures/popup-analysis.json', import.meta.url), 'utf8'));

test("chart bars follow the host's scale and failed arms are labelled by their integrity", () => {
  const { rows, legend } = chartModel(analysis.arms, 200, { top_mbps: 803, legend: null });
  assert.equal(legend, null);
  assert.equal(rows[1].whiskerTo, 200, 'the widest whisker at the edge');
  assert.deepEqual(rows.map((r) => r.intact), [true, true, false]);
  assert.equal(rows[2].bar, 0);
  assert.equal(rows[2].label, 'corrupted');
  assert.equal(rows[0].label, '102 Mbps');
});

test('the sink ceiling is a line, the host\'s sink-bound arms are marked, and no label starts left of the line', () => {
  const { rows, legend, labelX } = chartModel(analysis.arms, 200, analysis.chart);
  assert.ok(rows.every((r) => r.ceilingX === 200 && !r.ceilingOffScale), "a sink-bound arm's ceiling is on the host's scale");
  assert.equal(analysis.chart.legend.kind, 'one-ceiling');
  assert.equal(legend, legendText(analysis.chart.legend));
  assert.deepEqual(rows.map((r) => r.sinkBound), [false, true, false]);
  for (const r of rows) {
    assert.ok(labelX > r.ceilingX, `labels at ${labelX} would cross the ceiling at ${r.ceilingX}`);
    assert.ok(labelX > Math.max(r.bar, r.whiskerTo ?? 0));
  }
});

test("over several transports each arm's mark is its own sink's ceiling, at the edge when off the scale", () => {
  const [h1, h2] = [analysis.arms[0], { ...analysis.arms[0], body: 'Uint8Array h2', ceiling_mbps: 5000 }];
  const { rows } = chartModel([h1, h2], 200, { top_mbps: 2000, legend: { kind: 'per-transport' } });
  assert.deepEqual(rows.map((r) => r.ceilingX), [100, 200]);
  assert.deepEqual(rows.map((r) => r.ceilingOffScale), [false, true]);
});

test('every non-intact arm is a finding, and the host explains the ones it can', () => {
  const findings = integrityFindings(analysis.arms);
  assert.equal(findings.length, 1);
  assert.equal(analysis.arms[2].integrity.status, 'corrupted');
  assert.ok(findings[0].startsWith(`${analysis.arms[2].body}: `));
  const reason = analysis.notes.find((n) => n.kind === 'integrity-reason' && n.arm === analysis.arms[2].body);
  assert.equal(reason?.integrity, analysis.arms[2].integrity.status, 'the reason is among the notes every format shows');
  assert.ok(reason.why);
});

test('a run that stopped for another reason is not blamed on the host install', () => {
  const other = explainRunError({ error: 'stopped mid-run', failure: null }, 'Chromium');
  for (const failure of Object.values(HOST_FAILURE)) {
    const host = explainHostError({ error: 'x', failure }, 'Chromium');
    assert.deepEqual(explainRunError({ error: 'x', failure }, 'Chromium'), host, `a ${failure} run gets the host's advice`);
    assert.notEqual(other.fix, host.fix, `a run with no host failure does not get the ${failure} advice`);
    assert.notEqual(other.what, host.what);
  }
  assert.equal(other.detail, 'stopped mid-run', 'what stopped it is kept as the detail');
});

test("serve's page says what it offers to run, as it always did", () => {
  const plan = { size_bytes: 1048576, reps: 6, warmup: 1 };
  assert.equal(offerText({ arms: ['Blob', 'Uint8Array'], plan }), 'Blob, Uint8Array · 1 MiB per upload × 6 reps, 1 warm-up');
  const odd = { ...plan, size_bytes: 1000, auto: { max_reps: 100 } };
  assert.equal(offerText({ arms: ['Blob'], plan: odd }), 'Blob · 1000 bytes per upload × 6 reps or more (auto, up to 100), 1 warm-up');
});

test('every note a page can name has its words, with its values filled in', () => {
  const values = { error: 'e', transport: 't', attach: true, origin: 'http://o', version: '1', sink: 's', step: { phase: 'measure', rep: 0 }, what: 'w', block: 2, message: 'm', runId: 'r', mbps: '5', label: 'l', condition: 'attached', rep: 0, status: 'ok', failure: 'f', why: 'y', reason: 'z', recorded: 'incomplete' };
  const texts = Object.values(NOTE).map((kind) => noteText(kind, values));
  for (const [i, text] of texts.entries()) {
    assert.equal(typeof text, 'string', Object.values(NOTE)[i]);
    assert.ok(text.length > 0 && !text.includes('undefined'), text);
  }
  assert.equal(new Set(Object.values(NOTE)).size, Object.keys(NOTE).length, 'each note its own kind');
});

test('each host failure kind gets its own explanation, with the browser named', () => {
  const e = explainHostError({ failure: HOST_FAILURE.notRegistered }, 'Chromium');
  assert.match(e.what, /not registered with Chromium/);
  assert.match(e.what, /--profile/, 'a custom --user-data-dir is named as a possible cause');
  assert.match(e.fix, /unobserved install.*restart Chromium/);
  assert.match(explainHostError({ failure: HOST_FAILURE.storeFailed }, 'Chromium').fix, /Free some disk space/);
  assert.match(explainHostError({ failure: HOST_FAILURE.forbidden }, 'Edge').fix, /--extension-id/);
  const kinds = Object.values(HOST_FAILURE).map((failure) => explainHostError({ failure }, 'Firefox').what);
  assert.equal(new Set(kinds).size, kinds.length, 'no two kinds read the same');
});

test('the browsers\' disconnect words and the host\'s error names map to kinds, in one place', () => {
  assert.equal(disconnectFailure('Specified native messaging host not found.'), HOST_FAILURE.notRegistered);
  assert.equal(disconnectFailure('No such native application org.unobserved.host'), HOST_FAILURE.notRegistered);
  assert.equal(disconnectFailure('Access to the specified native messaging host is forbidden.'), HOST_FAILURE.forbidden);
  assert.equal(disconnectFailure('Native host has exited.'), HOST_FAILURE.exited);
  assert.equal(replyFailure({ type: 'error', code: 10, name: 'store-failed' }), HOST_FAILURE.storeFailed);
  assert.equal(replyFailure({ type: 'error', code: 3, name: 'invalid-message' }), HOST_FAILURE.hostError);
});

test('a result says which plan and run it is', async () => {
  const { resultLabel } = await import('../lib/format.js');
  assert.equal(
    resultLabel({ plan: { size_bytes: 33554432, reps: 6 }, run_id: '20261130-140334-abcd', finished_at: '2026-11-30T14:05:01.000Z' }),
    '32 MiB × 6 reps · run 20261130-140334-abcd · 14:05 UTC',
  );
  assert.equal(resultLabel({ run_id: 'r' }), 'run r', 'an old state without a plan still says which run');
  const samples = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((rep) => ({ rep }));
  assert.equal(resultLabel({ plan: { size_bytes: 33554432, reps: 6, auto: { max_reps: 1000, max_seconds: 60 } }, samples }), '32 MiB × 9 reps (auto from 6)');
});

test("beside each arm, its median's share of what the host's own client carried to the same sink", () => {
  const cells = tableRows(analysis.arms).map((r) => r[4][0]);
  assert.deepEqual(cells, analysis.arms.map((a) => formatShare(a.ceiling_share)));
  assert.ok(analysis.arms[1].ceiling_share > 0.5 && cells[1].endsWith('%'), 'Blob near its ceiling has a share');
  assert.equal(cells[2], formatShare(null), 'no intact upload: no share');
});

test("the table's ratio cell is the comparison with its baseline, the baseline's says so, and others have a dash", () => {
  const cells = tableRows(analysis.arms).map((r) => r[5][0]);
  const blob = analysis.arms.find((a) => a.comparison);
  assert.ok(cells.includes(`${formatComparison(blob.comparison)} vs ${blob.comparison.baseline.arm.label}`));
  assert.equal(cells[analysis.arms.findIndex((a) => a.baseline)], 'baseline');
});

// A plan of loads (4 reps in blocks of 3, quiet and CPU) takes a whole block of each, 6
// reps, before any budget may stop it: the popup and serve's page say the host's count.
test("a plan of loads is shown with the host's minimum reps, not the plan's", async () => {
  const { resultLabel } = await import('../lib/format.js');
  const plan = { size_bytes: 4194304, reps: 4, warmup: 1, loads: ['none', 'cpu'], auto: { max_reps: 1000, max_seconds: 5 } };
  const step = { phase: 'measure', rep: 0, label: 'Blob', arm: { kind: 'body', body: 'Blob' } };
  assert.match(progressText({ done: 1, total: 24, step, plan, minimum_reps: 6 }), / the first 6 reps, /);
  assert.equal(resultLabel({ plan, minimum_reps: 6, samples: [{ rep: 5 }] }), '4 MiB × 6 reps (auto from 6)');
  assert.equal(resultLabel({ plan: { ...plan, auto: undefined }, minimum_reps: 6 }), '4 MiB × 6 reps');
  assert.match(offerText({ arms: ['Blob'], plan, minimum_reps: 6 }), / × 6 reps or more /);
});
