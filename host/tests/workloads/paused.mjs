// fetch-blob.mjs, then a fixed pause of PAUSE_MS before the upload counts as done: a real
// difference of about 1.3x in page time on the machine BENCHMARKS.md measured ("Still
// decisive", issue 36), for checking that a run calls it.
//
// A module's figure is its page time, from the page's call to the module's promise
// settling (extension/bench/module-arm.js `runModule`). The pause comes after the reply,
// not before the request: before the fetch() it overlaps the Blob's hand-over to the
// browser process, which begins when the page makes the Blob just before the call, so a
// 30 ms pause there added only ~3 ms. It spins rather than sleeps: the benchmark tab's
// timers are throttled (a 100 ms setTimeout took ~300 ms), and a spin is the same length
// on every rep.
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
