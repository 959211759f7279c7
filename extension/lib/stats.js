// Per-arm summaries for the popup, the same figures `unobserved report` computes from
// the store (host/src/stats): median and min-max of intact samples, statuses, verdict.

export function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** The arm a sample belongs to: its body kind, and its condition in a control run. */
function armLabel(s) {
  return s.condition ? `${s.body} (${s.condition})` : s.body;
}

export const median = (xs) => quantile([...xs].sort((a, b) => a - b), 0.5);

export function summarise(samples) {
  const order = [];
  for (const s of samples) if (!order.includes(armLabel(s))) order.push(armLabel(s));
  return order.map((body) => {
    const arm = samples.filter((s) => armLabel(s) === body);
    const speeds = arm.filter((s) => s.status === 'ok' && Number.isFinite(s.mbps)).map((s) => s.mbps).sort((a, b) => a - b);
    const statuses = {};
    for (const s of arm) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
    return {
      body,
      n: speeds.length,
      median_mbps: quantile(speeds, 0.5),
      min_mbps: speeds.length ? speeds[0] : null,
      max_mbps: speeds.length ? speeds[speeds.length - 1] : null,
      statuses,
      verdict: verdict(arm),
    };
  });
}

export function verdict(arm) {
  const corrupted = arm.find((s) => s.status === 'corrupted');
  if (corrupted) return `corrupted: received ${corrupted.bytes_received ?? 0} bytes \`${(corrupted.head ?? '').slice(0, 40)}\``;
  for (const status of ['unsupported', 'aborted', 'error']) {
    const s = arm.find((x) => x.status === status);
    if (s) return `${status}: ${s.error ?? 'no detail'}`;
  }
  return arm.length ? 'intact' : 'no samples';
}

export function observedVerdict(samples) {
  const v = samples.map((s) => {
    const o = s.observed ?? {};
    if (o.webdriver === true || o.debugger_attached === true) return 'yes';
    return o.webdriver === false ? 'no' : 'unknown';
  });
  if (v.includes('yes')) return 'yes';
  return v.length && v.every((x) => x === 'no') ? 'no' : 'unknown';
}
