import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PHASE_BAR_WIDTH, phaseBarElements } from '../lib/phase-bar.js';
import { chartElements } from '../lib/chart.js';

// The host's analysis of a run whose Uint8Array and Blob uploads have sink timelines
// (host/src/report/tests.rs writes it): `phases` is what the popup's bar draws.
const analysis = JSON.parse(readFileSync(new URL('../../tests/fixtures/popup-analysis.json', import.meta.url), 'utf8'));
const close = (a, b) => Math.abs(a - b) < 1e-9;

const segmentsOf = (elements, body) => elements.filter((e) => e.attrs.class === 'phase' && e.attrs['data-arm'] === body);

test("one bar per arm the host gave phases, its segments in order and the host's figures", () => {
  assert.ok(analysis.phases.length >= 2, 'the fixture has phases for two arms');
  const { elements } = phaseBarElements(analysis);
  for (const line of analysis.phases) {
    const segments = segmentsOf(elements, line.body);
    assert.deepEqual(
      segments.map((s) => [s.attrs['data-phase'], s.attrs['data-ms']]),
      [
        ['preparing', line.preparing_ms],
        ['wire', line.wire_ms],
        ['reply', line.reply_ms],
      ],
    );
    const total = line.preparing_ms + line.wire_ms + line.reply_ms;
    assert.ok(elements.some((e) => e.attrs.class === 'phase-total' && e.text === `${total.toFixed(1)} ms ±${line.uncertainty_ms.toFixed(1)}`));
  }
});

test('every bar is on one scale: segments touch, widths go with the ms, the longest fills the width', () => {
  const { elements, barsFrom } = phaseBarElements(analysis);
  const totals = [];
  let scale = null;
  for (const line of analysis.phases) {
    let x = barsFrom;
    for (const s of segmentsOf(elements, line.body)) {
      assert.ok(close(s.attrs.x, x), `${line.body} ${s.attrs['data-phase']} starts where the last ended`);
      if (s.attrs['data-ms'] > 0) {
        const perMs = s.attrs.width / s.attrs['data-ms'];
        scale ??= perMs;
        assert.ok(close(perMs, scale), `${line.body} ${s.attrs['data-phase']}: ${perMs} px/ms, not ${scale}`);
      }
      x += s.attrs.width;
    }
    totals.push(x - barsFrom);
  }
  assert.ok(close(Math.max(...totals), PHASE_BAR_WIDTH), `the longest bar is ${Math.max(...totals)} of ${PHASE_BAR_WIDTH}`);
  assert.ok(totals.every((t) => t <= PHASE_BAR_WIDTH + 1e-9));
});

test("names and bars line up with the throughput chart's, in one condition and in two", () => {
  const DEPENDS = JSON.parse(readFileSync(new URL('../../tests/fixtures/figures-agree.json', import.meta.url), 'utf8')).depends.analysis;
  const LINES = JSON.parse(readFileSync(new URL('../../tests/fixtures/phase-lines.json', import.meta.url), 'utf8')).lines;
  const twoConditions = { ...DEPENDS, phases: LINES.map(({ line }) => line) };
  for (const a of [analysis, twoConditions]) {
    const bar = phaseBarElements(a);
    const chart = chartElements(a);
    assert.equal(bar.barsFrom, chart.barsFrom);
    assert.ok(bar.width >= chart.width);
  }
});

test('a run without phases draws no bar, and a zero-length upload no NaN', () => {
  assert.equal(phaseBarElements({ ...analysis, phases: [] }), null);
  assert.equal(phaseBarElements({ arms: analysis.arms }), null);
  const zero = { body: 'Blob', uploads: 1, preparing_ms: 0, wire_ms: 0, reply_ms: 0, uncertainty_ms: 0 };
  const { elements } = phaseBarElements({ arms: [], phases: [zero] });
  assert.ok(segmentsOf(elements, 'Blob').every((s) => s.attrs.width === 0 && Number.isFinite(s.attrs.x)));
});

// A run measured in two conditions (`--load none,cpu`): the host gives each arm a line
// per condition and names each (host/src/export/phases/tests.rs writes the fixture).
const PHASE_LINES = JSON.parse(readFileSync(new URL('../../tests/fixtures/phase-lines.json', import.meta.url), 'utf8')).lines;

test("a run in two conditions: each arm's line per condition, named as the host names it", () => {
  assert.ok(PHASE_LINES.some(({ line }) => line.condition), 'the fixture has lines with a condition');
  const { elements } = phaseBarElements({ arms: [], phases: PHASE_LINES.map(({ line }) => line) });
  const names = elements.filter((e) => e.name === 'text' && e.attrs.x === 0).map((e) => e.text);
  assert.deepEqual(names, PHASE_LINES.map(({ label }) => label));
  for (const { label } of PHASE_LINES) assert.equal(segmentsOf(elements, label).length, 3, `${label}: its own three segments`);
  assert.equal(new Set(names).size, names.length, 'no two lines share a name');
});
