// The popup's phase bar as SVG elements, pure: `{ width, height, barsFrom, elements }`,
// each element `{ name, attrs, text? }`, or null when the run has no phases. Laid out
// as the throughput chart above it (lib/chart.js), so names and bars line up. Per arm,
// where its median upload's time went, stacked on one scale as the HTML report draws it
// (host/src/export/timeline_svg.rs). Every figure is the host's (`analysis.phases`,
// from the sink's own timeline); nothing here is computed from the page's timings.
import { BAR_WIDTH, layoutOf, lineLabel } from './chart.js';

export { lineLabel };

/** The three phases in the order they happen, with the analysis field each reads. */
export const PHASES = Object.freeze([
  { name: 'preparing', field: 'preparing_ms', colour: '#e0a800', words: 'preparing (fetch() → first byte)' },
  { name: 'wire', field: 'wire_ms', colour: '#3a7ca5', words: 'on the wire' },
  { name: 'reply', field: 'reply_ms', colour: '#7f8c8d', words: 'reply' },
]);

/** Width of the bars' area, right of the arm names: the throughput chart's. */
export const PHASE_BAR_WIDTH = BAR_WIDTH;
const LEGEND_HEIGHT = 16;

const totalMs = (line) => PHASES.reduce((sum, p) => sum + line[p.field], 0);

function legend(add, x, y) {
  let at = x;
  for (const p of PHASES) {
    add('rect', { x: at, y: y - 8, width: 9, height: 9, fill: p.colour });
    add('text', { x: at + 12, y, 'font-size': 10 }, p.words);
    at += 12 + p.words.length * 5.2 + 10;
  }
  return at;
}

/** The bar of `analysis.phases`, its names as wide as the chart's for `analysis.arms`. */
export function phaseBarElements(analysis) {
  const phases = analysis?.phases;
  if (!phases?.length) return null;
  const { labelW, rowHeight, barTop, nameY, width: chartW } = layoutOf(analysis);
  const top = Math.max(...phases.map(totalMs));
  const scale = top > 0 ? PHASE_BAR_WIDTH / top : 0;
  const elements = [];
  const add = (name, attrs, text) => elements.push({ name, attrs, text });
  phases.forEach((line, i) => {
    add('text', { x: 0, y: i * rowHeight + 4 + nameY, 'font-size': 11 }, lineLabel(line));
    const y = i * rowHeight + 4 + barTop;
    let x = labelW;
    for (const p of PHASES) {
      const width = line[p.field] * scale;
      add('rect', { x, y, width, height: 14, fill: p.colour, class: 'phase', 'data-arm': lineLabel(line), 'data-phase': p.name, 'data-ms': line[p.field] });
      x += width;
    }
    add('text', { x: x + 5, y: y + 12, 'font-size': 11, class: 'phase-total' }, `${totalMs(line).toFixed(1)} ms ±${line.uncertainty_ms.toFixed(1)}`);
  });
  const height = phases.length * rowHeight + LEGEND_HEIGHT;
  const legendEnd = legend(add, 0, height - 3);
  const width = Math.max(chartW, legendEnd);
  return { width, height, barsFrom: labelW, elements };
}
