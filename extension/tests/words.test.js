// The extension writes figures and verdicts by the host's rules: every case of
// tests/fixtures/formats.json, which the host's export/words.rs writes from its own
// functions, must come out the same here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { comparisonLine, formatComparison, formatMbps, formatShare, formatSlowdown, integrityDetail, integrityWord, legendText } from '../lib/words.js';

const FIXTURE = JSON.parse(readFileSync(new URL('../../tests/fixtures/formats.json', import.meta.url), 'utf8'));

test('Mbps figures are written as the host writes them, ties and all', () => {
  for (const { value, text } of FIXTURE.mbps) assert.equal(formatMbps(value), text, `${value}`);
});

test("each arm's share of its link's ceiling is written as the host writes it", () => {
  assert.ok(FIXTURE.shares.length > 0);
  for (const { value, text } of FIXTURE.shares) assert.equal(formatShare(value), text, `${value}`);
});

test('comparisons, their lines and the control\'s slowdowns read as the host writes them', () => {
  for (const { comparison, text, line, slowdown } of FIXTURE.comparisons) {
    assert.equal(formatComparison(comparison), text);
    assert.equal(comparisonLine(comparison), line);
    assert.equal(formatSlowdown(comparison), slowdown);
  }
  assert.equal(formatSlowdown(null), FIXTURE.no_slowdown);
});

test("the chart's legend and each integrity's word and detail are the host's", () => {
  for (const { legend, text } of FIXTURE.legends) assert.equal(legendText(legend), text);
  for (const { integrity, word, detail } of FIXTURE.integrity) {
    assert.equal(integrityWord(integrity), word);
    assert.equal(integrityDetail(integrity), detail);
  }
});
