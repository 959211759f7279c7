// When the next upload starts: a fixed settle time after the previous reply's headers,
// which the sink sends at the body's last byte. Never "after the digest": the SHA-256
// verdict follows in the reply's body when the host has hashed it, so waiting for it
// would let the host's speed set how long the browser idles between uploads, and the
// figures would move with the tool (a slow hasher made Blob read 22% faster). The
// digest is still read, off the pacing path, before the sample is reported.

/**
 * Milliseconds from one reply's headers to the next upload. Long enough for the sink
 * to hash a 32 MiB body even on a CPU without SHA-NI (~260 MB/s: about 110 ms after
 * the last byte), so the reply's body is read and its connection free again before the
 * next upload, on a slow host as on a fast one.
 */
export const SETTLE_MS = 150;

/** `clock()` is milliseconds (performance.now); `sleep(ms)` resolves after ms. */
export function pacer({ settleMs = SETTLE_MS, clock, sleep }) {
  let next = null;
  return {
    /** Resolves when the next upload may start: at once before the first. */
    async ready() {
      const wait = next === null ? 0 : next - clock();
      if (wait > 0) await sleep(wait);
    },
    /** The reply's headers (or a workload's end) arrived at `at`. */
    settleFrom(at = clock()) {
      next = at + settleMs;
    },
  };
}

/** Digests still on their way; drained before the host is asked about the samples. */
export function pending() {
  const inFlight = new Set();
  return {
    add(promise) {
      const p = promise.finally(() => inFlight.delete(p));
      inFlight.add(p);
    },
    async drain() {
      await Promise.allSettled([...inFlight]);
    },
  };
}

/**
 * `sleep(ms)` on the timers of `worker` (lib/sleep-worker.js), which a background tab
 * does not hold back the way it holds back its own.
 */
export function workerSleep(worker) {
  const waiting = new Map();
  let next = 0;
  worker.onmessage = ({ data: id }) => {
    waiting.get(id)?.();
    waiting.delete(id);
  };
  return (ms) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      worker.postMessage({ id, ms });
    });
}
