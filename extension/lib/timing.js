// The page's clock of one upload, beside the sink's record of it: the fetch() call,
// and the Resource Timing marks the browser gives for the sink's origin (the sink sends
// Timing-Allow-Origin to the extension's pages). All in ms from the fetch() call; the
// host aligns the two clocks by the order of events (host/src/report/phases.rs).

/** How long to wait for the browser to queue the request's Resource Timing entry. */
const ENTRY_WAIT_MS = 250;

function entryOf(name, t0) {
  const entries = performance.getEntriesByName(name, 'resource').filter((e) => e.startTime >= t0 - 1);
  return entries[entries.length - 1] ?? null;
}

/** The entry for `name` started at or after `t0`, once the browser has queued it. */
function resourceEntry(name, t0) {
  const now = entryOf(name, t0);
  if (now || typeof PerformanceObserver === 'undefined') return Promise.resolve(now);
  return new Promise((resolve) => {
    const observer = new PerformanceObserver(() => {
      const e = entryOf(name, t0);
      if (e) done(e);
    });
    const timer = setTimeout(() => done(entryOf(name, t0)), ENTRY_WAIT_MS);
    function done(e) {
      observer.disconnect();
      clearTimeout(timer);
      resolve(e);
    }
    observer.observe({ type: 'resource' });
  });
}

/**
 * The Resource Timing marks of the upload to `url` that began at `t0` (performance.now()
 * before its fetch()), relative to `t0`; null where the browser gives none (0 means not
 * exposed). Call after the reply's body is read: the entry exists only then. The buffer
 * is cleared after, so a long run never fills it and loses entries.
 */
export async function pageTiming(url, t0) {
  const e = await resourceEntry(new URL(url, location.href).href, t0);
  performance.clearResourceTimings();
  // To the microsecond: Resource Timing is coarser than that anyway.
  const mark = (v) => (e && v > 0 ? Math.round((v - t0) * 1000) / 1000 : null);
  return {
    request_start_ms: mark(e?.requestStart),
    response_start_ms: mark(e?.responseStart),
    response_end_ms: mark(e?.responseEnd),
  };
}
