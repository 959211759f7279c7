// The page's own medians (the encrypted workload's client and PUT times per chunk).
// Interpolated like the host's `stats::quantile`; tests/fixtures/quantiles.json
// drives both test suites, so the two cannot drift.

export function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export const median = (xs) => quantile([...xs].sort((a, b) => a - b), 0.5);
