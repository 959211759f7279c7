// The popup's chart as SVG elements, pure: `{ width, height, elements }`, each element
// `{ name, attrs, text? }`. The popup turns them into DOM nodes; the tests read them.
import { chartModel } from './format.js';
import { armIn } from './words.js';

/** Width of the bars' area, right of the arm names. */
export const BAR_WIDTH = 200;
const ROW_HEIGHT = 22;

/** Room for the longest name ("Uint8Array (detached)") at about 6.5 px a character. */
const labelWidth = (names) => Math.max(100, ...names.map((n) => n.length * 6.5));
/** Beyond this, names go on a line of their own above their bars ("Blob with the CPU busy …"). */
const LABEL_ROOM = 160;
/** The whole drawing's width: names, bars, and the figures right of them. */
export const chartWidth = (labelW) => labelW + BAR_WIDTH + 160;

/**
 * A phase line's name: the arm's, and in a run measured in more than one condition, the
 * condition's, as the host's phase table names it (export/phases.rs, line_label).
 */
export const lineLabel = (line) => (line.condition ? armIn(line.body, line.condition) : line.body);

/**
 * Where names and bars go, for the chart and the phase bar under it alike (so their bars
 * line up): beside each other, or (a name longer than LABEL_ROOM, as a condition's row
 * has) each name on its own line above its bar, so none covers a bar.
 */
export function layoutOf(analysis, rows = chartModel(analysis.arms ?? [], BAR_WIDTH, analysis.chart).rows) {
  const room = labelWidth([...rows.map((r) => r.body), ...(analysis.phases ?? []).map(lineLabel)]);
  if (room <= LABEL_ROOM) return { labelW: room, rowHeight: ROW_HEIGHT, barTop: 0, nameY: 12, width: chartWidth(room) };
  return { labelW: 0, rowHeight: ROW_HEIGHT + 14, barTop: 14, nameY: 10, width: Math.max(chartWidth(0), room) };
}

export function chartElements(analysis) {
  const { rows, legend, labelX } = chartModel(analysis.arms, BAR_WIDTH, analysis.chart);
  const { labelW, rowHeight, barTop, nameY, width } = layoutOf(analysis, rows);
  const height = rows.length * rowHeight + (legend === null ? 4 : 18);
  const elements = [];
  const add = (name, attrs, text) => elements.push({ name, attrs, text });
  rows.forEach((row, i) => {
    add('text', { x: 0, y: i * rowHeight + 4 + nameY, 'font-size': 11, class: 'name' }, row.body);
    const y = i * rowHeight + 4 + barTop;
    add('rect', { x: labelW, y, width: Math.max(row.bar, 1), height: 14, fill: row.intact ? '#3a7ca5' : '#c0392b', class: 'bar', 'data-body': row.body });
    if (row.whiskerFrom !== null && row.whiskerTo !== null) {
      const wy = y + 7;
      add('line', { x1: labelW + row.whiskerFrom, x2: labelW + row.whiskerTo, y1: wy, y2: wy, stroke: '#1b2733', 'stroke-width': 1, class: 'whisker' });
      // A whisker cut at the edge has no end tick there: it goes on.
      const ends = row.whiskerCut ? [row.whiskerFrom] : [row.whiskerFrom, row.whiskerTo];
      for (const x of ends) add('line', { x1: labelW + x, x2: labelW + x, y1: wy - 4, y2: wy + 4, stroke: '#1b2733', 'stroke-width': 1 });
    }
    const label = row.sinkBound ? `${row.label} (sink-bound)` : row.label;
    add('text', { x: labelW + labelX, y: y + 12, 'font-size': 11 }, label);
    if (row.ceilingX !== null) {
      const x = labelW + row.ceilingX;
      // Off the scale: an arrowhead at the edge pointing past it (the legend has the figure).
      if (row.ceilingOffScale) add('polygon', { points: `${x},${y} ${x + 6},${y + 7} ${x},${y + 14}`, fill: '#e0a800', class: 'ceiling off-scale', 'data-edge': x });
      else add('line', { x1: x, x2: x, y1: y - 4, y2: y + ROW_HEIGHT - 4, stroke: '#e0a800', 'stroke-width': 2, 'stroke-dasharray': '4 3', class: 'ceiling' });
    }
  });
  if (legend !== null) add('text', { x: labelW, y: height - 2, 'font-size': 10, fill: '#8a6d00', class: 'legend' }, legend);
  return { width, height, barsFrom: labelW, elements };
}
