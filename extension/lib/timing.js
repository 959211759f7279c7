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
const watchers = new Set();
if (typeof PerformanceObserver !== 'undefined') {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      for (const watch of watchers) watch(e);
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

/** How long a module upload's requests must have been quiet before its marks are read. */
const QUIET_MS = 50;

/**
 * One upload of many requests (a workload module's): the marks of its first request's
 * start and its last reply, relative to `t0`, from the Resource Timing entries begun at
 * or after `t0` (null where there are none). The host aligns them with the sink's
 * combined record of the same requests as it does one request's.
 */
export function spanMarks(entries, t0) {
  const after = entries.filter((e) => e.startTime >= t0 - 1);
  const mark = (values, pick) => {
    const seen = values.filter((v) => v > 0);
    return seen.length ? Math.round((pick(...seen) - t0) * 1000) / 1000 : null;
  };
  return {
    request_start_ms: mark(after.map((e) => e.requestStart), Math.min),
    response_start_ms: mark(after.map((e) => e.responseStart), Math.max),
    response_end_ms: mark(after.map((e) => e.responseEnd), Math.max),
  };
}

/** Whether `name` is the URL `route` or one under it. */
export function isUnder(name, route) {
  return name === route || name.startsWith(`${route}/`) || name.startsWith(`${route}?`);
}

/**
 * Watches the requests under `routes` (absolute URLs) from now on. `marks(t0)` stops
 * watching once no entry has come for QUIET_MS (at most ENTRY_WAIT_MS after the call:
 * a browser may never deliver an entry) and gives `spanMarks` of what came.
 */
export function watchRequests(routes) {
  const seen = [];
  let last = performance.now();
  const take = (e) => {
    if (!routes.some((r) => isUnder(e.name, r))) return;
    seen.push(e);
    last = performance.now();
  };
  watchers.add(take);
  return {
    /** `sleep(ms)` as the pacer's (a background tab's own timers run late). */
    async marks(t0, sleep) {
      const until = performance.now() + ENTRY_WAIT_MS;
      const quiet = () => seen.length > 0 && performance.now() - last >= QUIET_MS;
      while (!quiet() && performance.now() < until) await sleep(QUIET_MS / 2);
      watchers.delete(take);
      return spanMarks(seen, t0);
    },
  };
}
