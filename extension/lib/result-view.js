// The host's analysis of a finished run, drawn: the popup's result and the result the
// page of `unobserved serve` shows (WebKit, Safari, phones) are this one view. It
// builds its own markup inside the given <section>, so both pages hold only the empty
// section; the styles are lib/result.css.
import { chartElements } from './chart.js';
import { armLines, integrityFindings, resultLabel, tableRows, versusParts } from './format.js';
import { comparisonLine, findingText, formatComparison, formatMbps, formatSlowdown, isConditionFinding, sideLabel } from './words.js';
import { phaseBarElements } from './phase-bar.js';

const SVG = 'http://www.w3.org/2000/svg';

const MARKUP = `
  <p id="result-head"></p>
  <p id="condition" hidden></p>
  <svg id="chart" role="img" aria-label="Median throughput per body kind"></svg>
  <div id="phases-view" hidden>
    <p class="note">Where the time went: median ms per upload, the page's fetch() against the sink's record of every byte's arrival</p>
    <svg id="phases" role="img" aria-label="Median phases per arm: preparing, on the wire, reply"></svg>
  </div>
  <table id="table">
    <thead><tr><th>Body</th><th>n</th><th>Median</th><th>Min–max</th><th>Of ceiling</th><th>vs baseline</th><th>Integrity</th></tr></thead>
    <tbody></tbody>
  </table>
  <table id="control-table" hidden>
    <thead><tr><th>Body</th><th>Attached</th><th>Detached</th><th>Slowdown</th></tr></thead>
    <tbody></tbody>
  </table>
  <ul id="findings"></ul>
  <p class="note">Mbps over intact uploads; each ratio is of the two medians, with its [95% interval]. Full report in a terminal: <code id="report-command">unobserved report</code></p>`;

function svgEl(doc, name, attrs, text) {
  const el = doc.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** Draws a pure model (`{ width, height, elements }`) into the <svg> `svg`. */
function drawSvg(svg, { width, height, elements }) {
  const doc = svg.ownerDocument;
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.replaceChildren(...elements.map((e) => svgEl(doc, e.name, e.attrs, e.text)));
}

/** The host's phases per arm; hidden for a run without them (no sink timeline). */
function drawPhases(section, analysis) {
  const model = phaseBarElements(analysis);
  section.querySelector('#phases-view').hidden = model === null;
  if (model !== null) drawSvg(section.querySelector('#phases'), model);
}

/** Table rows of text cells, each `[text, className]`. */
function fillRows(tbody, rows) {
  const doc = tbody.ownerDocument;
  tbody.replaceChildren(
    ...rows.map((cells) => {
      const tr = doc.createElement('tr');
      for (const [text, cls] of cells) {
        const td = doc.createElement('td');
        td.textContent = text;
        if (cls) td.className = cls;
        tr.append(td);
      }
      return tr;
    }),
  );
}

/**
 * A row's types, for styles and tests: its arm (the host's label), the condition of a
 * condition's row (`data-load`, `data-pressures`), and on its verdict cell the verdict
 * kind of the comparison (or of the condition's part) it shows.
 */
function markRow(tr, arm, line) {
  tr.dataset.arm = arm.body;
  if (line.condition) {
    tr.dataset.load = line.condition.load;
    tr.dataset.pressures = (line.condition.pressures ?? []).join(',');
  }
  const verdict = line.condition ? line.part?.verdict : arm.comparison?.verdict;
  if (verdict) tr.querySelector('td.vs').dataset.verdict = verdict;
}

/** Each part of an arm's comparison on a line of its own in its verdict cell, under its head. */
function listParts(tr, arm) {
  const { head, parts } = versusParts(arm);
  if (parts.length === 0) return;
  const doc = tr.ownerDocument;
  const list = doc.createElement('ul');
  list.className = 'parts';
  list.append(
    ...parts.map((text, i) => {
      const li = doc.createElement('li');
      li.textContent = text;
      li.dataset.verdict = arm.comparison.parts[i].verdict;
      return li;
    }),
  );
  const b = doc.createElement('b');
  b.textContent = head;
  tr.querySelector('td.vs').replaceChildren(b, list);
}

/**
 * The table. In a run measured in more than one condition, each arm has a head row and
 * a row per condition (format.js armLines); otherwise an arm whose comparison has parts
 * (blocks that parted) shows its head ("depends vs Uint8Array") and each part on a
 * line of its own in its cell.
 */
function drawTable(section, arms) {
  const tbody = section.querySelector('#table tbody');
  fillRows(tbody, tableRows(arms));
  const rows = [...tbody.children];
  let row = 0;
  arms.forEach((arm) => {
    const first = rows[row];
    for (const line of armLines(arm)) markRow(rows[row++], arm, line);
    if (!arm.conditions?.length) listParts(first, arm);
  });
}

/**
 * What the machine was doing while the run measured, right under the head: the host's
 * condition finding (measured in one condition, other work, or a condition that changed
 * part-way), in words made here by the host's rules. Hidden for a run stored before
 * conditions were recorded.
 */
function drawCondition(section, analysis) {
  const p = section.querySelector('#condition');
  const warnings = (analysis.warnings ?? []).filter(isConditionFinding);
  // A run of planned loads on a busy machine has both: the other work, and the plan.
  const findings = [...warnings, ...(analysis.notes ?? []).filter(isConditionFinding)];
  p.hidden = findings.length === 0;
  p.className = warnings.length ? 'condition warning' : 'condition';
  p.dataset.kinds = findings.map((f) => f.kind).join(' ');
  p.textContent = findings.map(findingText).join(' ');
}

function drawControl(section, analysis) {
  const rows = analysis?.control ?? [];
  section.querySelector('#control-table').hidden = rows.length === 0;
  fillRows(
    section.querySelector('#control-table tbody'),
    rows.map((r) => [
      [r.body, ''],
      [formatMbps(r.attached_mbps), 'num'],
      [formatMbps(r.detached_mbps), 'num'],
      [formatSlowdown(r.slowdown), ''],
    ]),
  );
}

/** "Uint8Array vs itself: 1.01x [0.97–1.04] same within ±5%". */
function negativeControl(c) {
  return `${sideLabel(c.baseline)} vs itself: ${formatComparison(c)}`;
}

/**
 * The findings list as `[label, text, className, kind]`: integrity findings with their reasons,
 * then the negative control, warnings (a workload module that changed since it was
 * registered among them) and notes, as the host wrote them, each with the host's finding
 * kind (the others have none).
 */
export function findingItems(analysis) {
  return [
    ...integrityFindings(analysis.arms ?? []).map((text) => ['Integrity', text, 'warning']),
    ...(analysis?.transports ?? []).map((t) => ['Transport', comparisonLine(t), 'note']),
    ...(analysis?.negative_control ? [['Negative control', negativeControl(analysis.negative_control), 'note']] : []),
    // The condition's own finding is the line under the head (drawCondition).
    ...(analysis?.warnings ?? []).filter((w) => !isConditionFinding(w)).map((w) => ['Warning', findingText(w), 'warning', w.kind]),
    ...(analysis?.notes ?? []).filter((n) => !isConditionFinding(n)).map((n) => ['Note', findingText(n), 'note', n.kind]),
  ];
}

function drawFindings(section, analysis) {
  const doc = section.ownerDocument;
  const items = findingItems(analysis);
  section.querySelector('#findings').replaceChildren(
    ...items.map(([label, text, cls, kind]) => {
      const li = doc.createElement('li');
      li.className = cls;
      if (kind) li.dataset.kind = kind;
      const b = doc.createElement('b');
      b.textContent = `${label}: `;
      li.append(b, text);
      return li;
    }),
  );
}

function drawHead(section, state, analysis) {
  const doc = section.ownerDocument;
  const head = section.querySelector('#result-head');
  head.replaceChildren(`${state.browser ?? ''} ${state.browser_version ?? ''} on ${state.os ?? ''} · observed: `);
  const badge = doc.createElement('span');
  badge.className = `badge ${analysis.observed}`;
  badge.textContent = analysis.observed;
  head.append(badge);
  const label = doc.createElement('div');
  label.className = 'note';
  label.textContent = resultLabel(state);
  head.append(label);
}

/**
 * Shows `state.analysis` (the host's analysis of the stored run) in `section`, or hides
 * the section when there is none. `state` also gives the browser, OS, plan and run id.
 */
export function drawResult(section, state) {
  const analysis = state?.analysis;
  section.hidden = !analysis?.arms?.length;
  if (!analysis?.arms?.length) return;
  if (!section.querySelector('#chart')) {
    const parsed = new DOMParser().parseFromString(`<body>${MARKUP}</body>`, 'text/html');
    section.replaceChildren(...section.ownerDocument.importNode(parsed.body, true).childNodes);
  }
  drawHead(section, state, analysis);
  drawCondition(section, analysis);
  if (state.run_id) section.querySelector('#report-command').textContent = `unobserved report --run ${state.run_id} --format html -o unobserved-report.html`;
  drawSvg(section.querySelector('#chart'), chartElements(analysis));
  drawPhases(section, analysis);
  drawTable(section, analysis.arms);
  drawControl(section, analysis);
  drawFindings(section, analysis);
}
