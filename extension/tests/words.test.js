// The extension writes figures and verdicts by the host's rules: every case of
// tests/fixtures/formats.json, which the host's export/words.rs writes from its own
// functions, must come out the same here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { versus, versusParts } from '../lib/format.js';
import { AUTO_REASON } from '../lib/names.js';
import { autoDoneReason, autoReasonWords, comparisonLine, comparisonParts, conditionPhrase, endReasonText, endWords, findingText, formatComparison, formatMbps, formatShare, formatSlowdown, integrityDetail, integrityWord, moduleFailureText, sampleErrorText, isConditionFinding, legendText, measuredIn, stateWords } from '../lib/words.js';

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

test("each sample error kind reads as the host words it, with and without the sink's status", () => {
  assert.ok(FIXTURE.sample_errors.length > 0);
  for (const { kind, http_status: status, text } of FIXTURE.sample_errors) assert.equal(sampleErrorText(kind, status), text);
  assert.equal(sampleErrorText('a sentence from an older store', null), null);
});

test('each way a workload module fails reads as the host words it, numbers and all', () => {
  assert.ok(FIXTURE.module_failures.some(({ failure }) => failure.timeout_ms));
  for (const { failure, text } of FIXTURE.module_failures) assert.equal(moduleFailureText(failure), text);
});

test('comparisons with parts, per condition or by blocks, read as the host writes them', () => {
  const parted = FIXTURE.comparisons.filter((c) => c.comparison.parts?.length);
  assert.ok(parted.some((c) => c.comparison.verdict === 'depends'), 'the fixture has a "depends" comparison');
  assert.ok(parted.some((c) => c.comparison.parts.some((p) => p.of === 'blocks')), 'and one whose blocks parted');
  for (const { comparison, text } of parted) {
    const { head, parts } = comparisonParts(comparison);
    assert.equal(parts.length, comparison.parts.length);
    assert.equal(`${head}: ${parts.join('; ')}`, text);
  }
});

test("the table's cell of an arm against its baseline is the host's, parts and all", () => {
  for (const { comparison, versus: cell } of FIXTURE.comparisons) {
    assert.equal(versus({ comparison, baseline: false }), cell);
    const { head, parts } = versusParts({ comparison });
    assert.equal(parts.length, comparison.parts?.length ?? 0);
    assert.ok(cell.startsWith(head));
  }
});

test("each condition, the machine's state and the findings about them read as the host writes them", () => {
  const { cases, findings } = FIXTURE.conditions;
  for (const { condition, state, phrase, state_words: words, measured_in: measured } of cases) {
    assert.equal(conditionPhrase(condition), phrase);
    assert.equal(stateWords(state), words);
    assert.equal(measuredIn(condition, state), measured);
  }
  for (const { finding, text } of findings) {
    assert.ok(isConditionFinding(finding), finding.kind);
    assert.equal(findingText(finding), text);
  }
  // Any other finding is shown as the host wrote it.
  assert.equal(findingText({ kind: 'hash-bound', message: 'as written' }), 'as written');
  assert.equal(isConditionFinding({ kind: 'hash-bound' }), false);
});

test("a run's typed end reason reads as the host writes it", () => {
  assert.ok(FIXTURE.end_reasons.length > 0);
  for (const { end_reason: reason, text } of FIXTURE.end_reasons) assert.equal(endReasonText(reason), text);
  assert.equal(endReasonText(undefined), null);
});

test("a run's end reads as the host writes it: a page's reason with its detail, the host's without the page's word", () => {
  assert.ok(FIXTURE.end_words.length > 0);
  for (const { end_reason: why, reason, text } of FIXTURE.end_words) assert.equal(endWords(why, reason), text, `${why} ${reason}`);
});

test("why an auto-sampled run goes on or stops reads as the host writes it, every kind", () => {
  const kinds = FIXTURE.auto_reasons.map(({ reason }) => reason.kind);
  assert.deepEqual([...kinds].sort(), Object.values(AUTO_REASON).sort(), 'one case of every kind');
  for (const { reason, text, done } of FIXTURE.auto_reasons) {
    assert.equal(autoReasonWords(reason), text);
    assert.equal(autoDoneReason(reason, 12), done);
  }
  assert.equal(autoDoneReason(null, 12), null, 'a run without auto sampling has no end reason');
});
