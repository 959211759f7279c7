// The page's clock of one upload, beside the sink's record of it: the fetch() call,
// and the Resource Timing marks the browser gives for the sink's origin (the sink sends
// Timing-Allow-Origin to the extension's pages). All in ms from the fetch() call; the
// host aligns the two clocks by the order of events (host/src/report/phases.rs).

/** How long to wait for the browser to deliver the request's Resource Timing entry. */
const ENTRY_WAIT_MS = 250;
/** Entries kept for uploads not yet asked about: uploads in flight at once, with room. */
const MAX_KEPT = 64;

// Entries arrive through an observer, whatever the buffer holds: uploads overlap (the
// next starts before the last reply is read), so no upload's entry waits in, or is
// cleared from, the shared buffer. The buffer is emptied whenever it fills.
const arrived = new Map();
const waiting = new Map();
if (typeof PerformanceObserver !== 'undefined') {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const wanted = waiting.get(e.name);
      if (wanted) wanted(e);
      else arrived.set(e.name, e);
      if (arrived.size > MAX_KEPT) arrived.delete(arrived.keys().next().value);
    }
  }).observe({ type: 'resource' });
  performance.addEventListener?.('resourcetimingbufferfull', () => performance.clearResourceTimings());
}

/** The entry for `name` started at or after `t0`, once the browser has delivered it. */
function resourceEntry(name, t0) {
  const fits = (e) => e && e.startTime >= t0 - 1;
  const now = arrived.get(name);
  arrived.delete(name);
  if (fits(now)) return Promise.resolve(now);
  return new Promise((resolve) => {
    const done = (e) => {
      waiting.delete(name);
      clearTimeout(timer);
      resolve(fits(e) ? e : null);
    };
    const timer = setTimeout(() => done(null), ENTRY_WAIT_MS);
    waiting.set(name, done);
  });
}

/**
 * The Resource Timing marks of the upload to `url` that began at `t0` (performance.now()
 * before its fetch()), relative to `t0`; null where the browser gives none (0 means not
 * exposed). Call once the reply's body is read: the entry exists only then.
 */
export async function pageTiming(url, t0) {
  const e = await resourceEntry(new URL(url, location.href).href, t0);
  // To the microsecond: Resource Timing is coarser than that anyway.
  const mark = (v) => (e && v > 0 ? Math.round((v - t0) * 1000) / 1000 : null);
  return {
    request_start_ms: mark(e?.requestStart),
    response_start_ms: mark(e?.responseStart),
    response_end_ms: mark(e?.responseEnd),
  };
}
