// Numbers and verdicts in words, by the host's rules (host/src/export/words.rs): the
// popup, the summary tab and `serve`'s page write a figure as every report does.
// tests/fixtures/formats.json is written from the host's functions and
// extension/tests/words.test.js holds these to it, case by case.

/**
 * `v.toFixed(digits)`, but an exact tie rounds to even, as Rust's formatting does
 * (toFixed rounds it up): 100.5 -> "100", 0.125 -> "0.12".
 */
export function fixed(v, digits) {
  const [whole, fraction = ''] = v.toFixed(100).split('.');
  if (!/^50*$/.test(fraction.slice(digits))) return v.toFixed(digits);
  const kept = digits === 0 ? whole : `${whole}.${fraction.slice(0, digits)}`;
  return Number(kept.at(-1)) % 2 === 0 ? kept : v.toFixed(digits);
}

/** Whole Mbps, with decimals where whole numbers would round tiny bodies to 0: "0.01", "42.3", "2190". */
export function formatMbps(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v < 10) return fixed(v, 2);
  if (v < 100) return fixed(v, 1);
  return fixed(v, 0);
}

/** "702–1036", or a single dash when there is no intact sample. */
export function formatRange(min, max) {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return '–';
  return `${formatMbps(min)}–${formatMbps(max)}`;
}

/** A median as a share of its link's (or sink's) ceiling: "76%"; a dash for none. */
export function formatShare(s) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  return `${fixed(s * 100, 0)}%`;
}

/** A horizon as a percentage: "5", "2.5". */
function percent(h) {
  const p = h * 100;
  return Math.abs(p - Math.round(p)) < 1e-9 ? fixed(p, 0) : fixed(p, 1);
}

/** The words of each verdict the host gives (stats::compare::Verdict). */
const VERDICT_WORDS = Object.freeze({
  faster: () => 'faster',
  slower: () => 'slower',
  same: (horizon) => `same within ±${percent(horizon)}%`,
  'not-resolved': () => 'not resolved',
  'not-comparable': () => 'not comparable',
});

export function verdictWords(verdict, horizon) {
  return VERDICT_WORDS[verdict]?.(horizon) ?? verdict;
}

/** "1.95x [1.73–2.33]" at `digits` decimals, or the ratio with why it has no interval. */
export function formatRatio({ ratio, ci_low: lo, ci_high: hi }, digits) {
  const r = `${fixed(ratio, digits)}x`;
  if (lo === null || lo === undefined || hi === null || hi === undefined) return `${r} [no 95% interval below 4 samples per arm]`;
  return `${r} [${fixed(lo, digits)}–${fixed(hi, digits)}]`;
}

/** "1.26x [1.18–1.36] faster". */
export function formatComparison(c) {
  return `${formatRatio(c, 2)} ${verdictWords(c.verdict, c.horizon)}`;
}

/** A comparison's side as a reader is shown it: the arm's label, and the runs when it is another's. */
export function sideLabel(side) {
  return side.of === 'runs' ? `${side.arm.label} in ${side.run_ids.join(',')}` : side.arm.label;
}

/** "Blob h2 vs Blob h1: 1.10x [1.02–1.21] faster". */
export function comparisonLine(c) {
  return `${sideLabel(c.arm)} vs ${sideLabel(c.baseline)}: ${formatComparison(c)}`;
}

/** The positive control's slowdown (detached / attached): "12.5x [11.7–13.4] slower when attached", or a dash. */
export function formatSlowdown(s) {
  if (!s) return '–';
  // The ratio is detached / attached: "faster" means slower attached.
  const words = s.verdict === 'faster' ? 'slower when attached' : s.verdict === 'slower' ? 'faster when attached' : verdictWords(s.verdict, s.horizon);
  return `${formatRatio(s, 1)} ${words}`;
}

/** The chart's legend (report::chart_scale::Legend), or null without one. */
export function legendText(legend) {
  switch (legend?.kind) {
    case 'one-ceiling':
      return `dashed: sink ceiling ${formatMbps(legend.ceiling_mbps)} Mbps`;
    case 'per-transport':
      return "dashed: the sink ceiling of each arm's transport";
    case 'off-scale':
      return `▸ sink ceiling ${legend.ceilings_mbps.map(formatMbps).join(', ')} Mbps, off the scale (${fixed(legend.times_edge, 1)}x the edge)`;
    default:
      return null;
  }
}

/** One word for a table cell, by the integrity's `status`. */
export function integrityWord(integrity) {
  return integrity.status === 'no-samples' ? 'no samples' : integrity.status;
}

/** What arrived or what the browser said, when there is more than the word. */
export function integrityDetail(integrity) {
  if (integrity.status === 'corrupted') return `received ${integrity.bytes_received} bytes \`${integrity.head}\``;
  return integrity.error ?? null;
}
