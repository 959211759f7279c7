import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { chartModel, tableRows, versusParts } from '../lib/format.js';
import { findingText, formatMbps, isConditionFinding, legendText } from '../lib/words.js';
import { BAR_WIDTH, chartElements } from '../lib/chart.js';

// One run whose rank interval and medians disagree, and whose sink ceiling is far above
// the arms; `analysis` is what the host sends the popup for it. The host's own test
// renders the same run in every report format (host/src/export/figures_agree.rs).
const fixture = JSON.parse(readFileSync(new URL('../../tests/fixtures/figures-agree.json', import.meta.url), 'utf8'));
const { analysis } = fixture;

// The verdicts' kinds (the host's `Verdict`, kebab-case): the test reads the typed
// comparison, never the words the table prints for it.
const [FASTER, SLOWER] = ['faster', 'slower'];

test('the popup never shows faster beside a lower median, nor a ratio that points away from the medians', () => {
  const rows = tableRows(analysis.arms);
  const base = analysis.arms.find((a) => a.baseline);
  const compared = analysis.arms.filter((a) => a.comparison);
  for (const arm of compared) {
    const { verdict, ratio } = arm.comparison;
    const [m, b] = [arm.median_mbps, base.median_mbps];
    const said = `${arm.body}: ${verdict} ${ratio} beside ${m} vs ${b}`;
    if (verdict === FASTER) assert.ok(m > b, said);
    if (verdict === SLOWER) assert.ok(m < b, said);
    if (ratio > 1) assert.ok(m >= b, said);
    if (ratio < 1) assert.ok(m <= b, said);
    // The table shows this arm's own median and comparison, in the host's words.
    const row = rows.find((r) => r[0][0] === arm.body);
    assert.equal(row[2][0], formatMbps(m), arm.body);
    assert.equal(row[5][0], versusParts(arm).head, arm.body);
  }
  assert.equal(compared.length, 2, 'both arms are compared with Uint8Array');
});

test("the chart is scaled to the arms: the longest bar fills at least half the bars' width, the far ceiling is marked at the edge and written", () => {
  const { elements, barsFrom } = chartElements(analysis);
  const bars = elements.filter((e) => e.name === 'rect' && e.attrs.class === 'bar');
  assert.equal(bars.length, analysis.arms.length);
  const longest = Math.max(...bars.map((b) => b.attrs.width));
  assert.ok(longest >= BAR_WIDTH / 2, `the longest bar is ${longest} of ${BAR_WIDTH}`);
  assert.ok(bars.every((b) => b.attrs.x === barsFrom && b.attrs.x + b.attrs.width <= barsFrom + BAR_WIDTH));
  const ceilings = elements.filter((e) => e.attrs.class?.startsWith('ceiling'));
  assert.ok(ceilings.length > 0);
  for (const c of ceilings) {
    assert.equal(c.attrs.class, 'ceiling off-scale');
    assert.equal(c.attrs['data-edge'], barsFrom + BAR_WIDTH, 'marked at the right edge');
  }
  const legend = elements.find((e) => e.attrs.class === 'legend');
  assert.equal(analysis.chart.legend.kind, 'off-scale');
  assert.deepEqual(analysis.chart.legend.ceilings_mbps, [analysis.arms[0].ceiling_mbps], 'the far ceiling is in the legend');
  assert.equal(legend.text, legendText(analysis.chart.legend), 'and written under the chart');
});

// A `--load none,cpu` run whose Blob is 0.7x of Uint8Array when quiet and 1.6x with the
// CPU busy: the host's own test renders it in every format (figures_agree.rs) and
// stores here the analysis the popup gets and the cell every format prints.
test("a comparison that depends reads as the host's table cell, parts and all, and the condition's finding is the host's words", () => {
  const { analysis: depends, versus } = fixture.depends;
  const blob = tableRows(depends.arms).find((r) => r[0][0] === 'Blob');
  assert.equal(blob[5][0], versus, "the arm's head row: the verdict without its parts");
  const arm = depends.arms.find((a) => a.body === 'Blob');
  assert.equal(arm.comparison.verdict, 'depends');
  const { head, parts } = versusParts(arm);
  assert.equal(parts.length, arm.comparison.parts.length);
  assert.equal(head, versus);
  // The loads alternated by plan: a note, and no warning of a changed condition.
  assert.equal(depends.warnings.filter(isConditionFinding).length, 0);
  const planned = depends.notes.filter(isConditionFinding);
  assert.deepEqual(
    planned.map((n) => n.kind),
    ['loads-planned'],
  );
  for (const n of planned) assert.equal(findingText(n), n.message);
});

// Issue 36: the same run's summary, per condition. No median or range is pooled across
// the two conditions; the popup's table is the host's, cell for cell.
test("a run in two conditions: the popup's table is the host's, a row per arm and condition", () => {
  const { analysis: depends, table } = fixture.depends;
  const rows = tableRows(depends.arms).map((r) => r.slice(0, 6).map(([text]) => text));
  assert.deepEqual(rows, table);
  assert.equal(rows.length, 3 * depends.arms.length, 'a head and two conditions per arm');
});

test('a run in two conditions: one chart bar per arm and condition, none pooled', () => {
  const { analysis: depends, table } = fixture.depends;
  const { rows } = chartModel(depends.arms, 200, depends.chart);
  assert.deepEqual(
    rows.map((r) => r.body),
    table.filter((t) => t[2] !== '–').map((t) => t[0]),
  );
});

// The popup's chart of a run in two conditions: "Uint8Array with the CPU busy (this run's
// own load)" is far longer than an arm's name, and once covered half its bar.
test('no name covers a bar: short names beside their bars, a condition\'s long ones on a line above', () => {
  const CHAR_PX = 6.5;
  for (const [which, a, stacked] of [['one condition', analysis, false], ['two conditions', fixture.depends.analysis, true]]) {
    const { elements } = chartElements(a);
    const names = elements.filter((e) => e.attrs.class === 'name');
    const bars = elements.filter((e) => e.attrs.class === 'bar');
    assert.equal(names.length, bars.length, which);
    assert.equal(names.some((n) => n.text.length * CHAR_PX > bars[0].attrs.x), stacked, `${which}: names wider than their room`);
    names.forEach((name, i) => {
      const beside = name.attrs.x + name.text.length * CHAR_PX <= bars[i].attrs.x;
      const above = name.attrs.y <= bars[i].attrs.y;
      assert.ok(beside || above, `${which}: "${name.text}" covers its bar`);
    });
  }
});
