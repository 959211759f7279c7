// What the popup and the page of `unobserved serve` show of a result (lib/result-view.js):
// the real view drawn into a DOM (happy-dom, a devDependency) from the host's analyses in
// the shared fixtures. tests/fixtures/figures-agree.json and formats.json are written by
// the host's own tests (export::figures_agree, export/words.rs), so every cell and line
// checked here is the host's, and kinds are read from the DOM's data attributes, not its
// words.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Window } from 'happy-dom';
import { drawResult, findingItems } from '../lib/result-view.js';

const fixture = (name) => JSON.parse(readFileSync(new URL(`../../tests/fixtures/${name}`, import.meta.url), 'utf8'));
const FORMATS = fixture('formats.json');
const FIGURES = fixture('figures-agree.json');

const window = new Window();
window.document.write('<!doctype html><html><body></body></html>');
// The view parses its markup as the popup does, with the page's own DOMParser.
globalThis.DOMParser = window.DOMParser;
after(() => window.happyDOM.close());

/** The result drawn into a fresh <section>, as the popup draws a finished run's state. */
function draw(analysis) {
  const section = window.document.createElement('section');
  section.hidden = true;
  window.document.body.append(section);
  drawResult(section, { analysis, browser: 'firefox', browser_version: '153.0', os: 'linux', run_id: '20261202-080000-abcd' });
  return section;
}
const rowsOf = (section) => [...section.querySelectorAll('#table tbody tr')];
const texts = (tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent);
const verdictOf = (tr) => tr.querySelector('td.vs').dataset.verdict ?? null;
const intact = FORMATS.integrity.find((c) => c.integrity.status === 'intact');

test('a workload module that changed since it was registered is listed as a warning, in the host\'s words', () => {
  const { finding, text } = FORMATS.module_changed;
  assert.equal(finding.kind, 'module-changed');
  assert.ok(finding.sha256 !== finding.registered_sha256);
  const items = findingItems({ arms: [], warnings: [finding], notes: [] });
  assert.deepEqual(items, [['Warning', text, 'warning', finding.kind]]);
});

// A `--load none,cpu` run whose Blob is 0.69x of Uint8Array when quiet and 1.57x with the
// CPU busy: the host's table has a head row per arm and a row per condition.
test('a run in two conditions: the host\'s cells, a head row and a row per condition for each arm, the depends verdict and each condition\'s part', () => {
  const { analysis, table, versus } = FIGURES.depends;
  const section = draw(analysis);
  assert.equal(section.hidden, false);
  const rows = rowsOf(section);
  assert.deepEqual(
    rows.map((tr) => texts(tr).slice(0, 6)),
    table,
    'every cell is the host\'s',
  );
  for (const tr of rows) {
    const integrity = tr.querySelectorAll('td')[6];
    assert.deepEqual([integrity.textContent, integrity.className], [intact.word, 'ok']);
  }
  // The rows: each arm's head (no condition), then its conditions in the host's order.
  const expected = analysis.arms.flatMap((a) => [
    [a.body, null],
    ...a.conditions.map((c) => [a.body, c.condition.load]),
  ]);
  assert.deepEqual(
    rows.map((tr) => [tr.dataset.arm, tr.dataset.load ?? null]),
    expected,
  );
  assert.deepEqual(
    expected.map(([, load]) => load),
    [null, 'none', 'cpu', null, 'none', 'cpu'],
  );
  // The verdict kinds: the baseline's rows have none; Blob's head is `depends`, and each
  // condition's row carries its own part's verdict, of opposite signs.
  const blob = analysis.arms.find((a) => a.body === 'Blob');
  assert.deepEqual(
    rows.map(verdictOf),
    [null, null, null, blob.comparison.verdict, ...blob.conditions.map((c) => c.part.verdict)],
  );
  assert.deepEqual(rows.slice(3).map(verdictOf), ['depends', 'slower', 'faster']);
  assert.equal(rows[3].querySelector('td.vs').textContent, versus);
  // No parts list in a head row: the parts are the condition rows.
  assert.equal(section.querySelectorAll('ul.parts').length, 0);
  // The planned loads are the condition line, a note in the host's words; no findings list.
  const condition = section.querySelector('#condition');
  const [planned] = analysis.notes;
  assert.deepEqual([condition.hidden, condition.className, condition.dataset.kinds], [false, 'condition', 'loads-planned']);
  assert.equal(condition.textContent, planned.message);
  assert.equal(section.querySelectorAll('#findings li').length, 0);
  // The chart: a bar per arm and condition.
  assert.equal(section.querySelectorAll('#chart rect.bar').length, rows.length - analysis.arms.length);
});

// The same Blob depends across blocks of one condition (blocks that parted): one row per
// arm, and the parts listed in its verdict cell, each with its verdict.
test('a comparison whose blocks parted: its head and each part on a line of its own, with their verdicts', () => {
  const parted = FORMATS.comparisons.find((c) => c.comparison.verdict === 'depends' && c.comparison.parts[0].of === 'blocks');
  const analysis = structuredClone(FIGURES.analysis);
  analysis.arms.find((a) => a.body === 'Blob').comparison = parted.comparison;
  const rows = rowsOf(draw(analysis));
  assert.deepEqual(
    rows.map((tr) => [tr.dataset.arm, tr.dataset.load ?? null]),
    analysis.arms.map((a) => [a.body, null]),
  );
  const cell = rows.find((tr) => tr.dataset.arm === 'Blob').querySelector('td.vs');
  assert.equal(cell.dataset.verdict, 'depends');
  const parts = [...cell.querySelectorAll('ul.parts li')];
  assert.deepEqual(
    parts.map((li) => li.dataset.verdict),
    parted.comparison.parts.map((p) => p.verdict),
  );
  assert.deepEqual(parts.map((li) => li.dataset.verdict), ['slower', 'faster']);
  assert.equal(`${cell.querySelector('b').textContent}: ${parts.map((li) => li.textContent).join('; ')}`, parted.versus);
  // ArrayBuffer's interval and medians disagree: not resolved, in the host's words.
  const [, , , , , ab] = rows.find((tr) => tr.dataset.arm === 'ArrayBuffer').querySelectorAll('td');
  assert.equal(ab.dataset.verdict, 'not-resolved');
  assert.equal(ab.querySelectorAll('li').length, 0);
});

test('typed warnings and notes: other work on the condition line, a changed module and a corrupted arm in the findings, each with its kind', () => {
  const otherWork = FORMATS.conditions.findings.find((f) => f.finding.kind === 'other-work');
  const corrupted = FORMATS.integrity.find((c) => c.integrity.status === 'corrupted');
  const analysis = structuredClone(FIGURES.analysis);
  analysis.warnings = [otherWork.finding, FORMATS.module_changed.finding];
  analysis.arms.find((a) => a.body === 'Blob').integrity = corrupted.integrity;
  const section = draw(analysis);
  const condition = section.querySelector('#condition');
  assert.deepEqual([condition.hidden, condition.className, condition.dataset.kinds], [false, 'condition warning', 'other-work']);
  assert.equal(condition.textContent, otherWork.text);
  const items = [...section.querySelectorAll('#findings li')];
  assert.deepEqual(
    items.map((li) => [li.className, li.dataset.kind ?? null]),
    [
      ['warning', null], // the corrupted arm's integrity
      ['warning', 'module-changed'],
    ],
  );
  assert.equal(items[1].lastChild.textContent, FORMATS.module_changed.text);
  assert.ok(items[0].lastChild.textContent.includes(corrupted.detail), 'the integrity finding gives what arrived');
  const blob = rowsOf(section).find((tr) => tr.dataset.arm === 'Blob').querySelectorAll('td')[6];
  assert.deepEqual([blob.textContent, blob.className], [corrupted.word, 'bad']);
});

test('a state with no analysis hides the result', () => {
  const section = draw(undefined);
  assert.equal(section.hidden, true);
  assert.equal(section.querySelector('#table'), null);
});
