// fetch-blob.mjs, then a fixed pause of PAUSE_MS before the upload counts as done: a real
// difference of about 1.3x in page time on the machine BENCHMARKS.md measured ("Still
// decisive", issue 36), for checking that a run calls it.
//
// A module's figure is its page time, from the page's call to the module's promise
// settling (extension/bench/module-arm.js `runModule`). The pause comes after the reply,
// not before the request: a 30 ms pause before the fetch() added only 3-13 ms (it runs
// beside something the upload waits for anyway, not found; BENCHMARKS.md), while one
// after the reply adds its whole length. It spins rather than sleeps: the benchmark
// tab's timers are throttled (a 100 ms setTimeout took ~300 ms), and a spin is the same
// length on every rep.
export const unobserved = 1;

const PAUSE_MS = 25;

export default async function upload({ blob, url, signal }) {
  const res = await fetch(url, { method: 'PUT', body: blob, signal });
  if (!res.ok) throw new Error(`the sink answered HTTP ${res.status}`);
  const t0 = performance.now();
  while (performance.now() - t0 < PAUSE_MS) {
    // the pause: a fixed span of the page's own time inside the measured upload
  }
}
