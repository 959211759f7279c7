// The benchmark page's settle time (lib/pacing.js), kept in a worker: browsers hold
// back the timers of a page in a background tab (Chromium and Firefox fire them at most
// once a second), not a dedicated worker's. A run whose tab is not in front (every run
// `unobserved run` starts, or a popup run the user tabbed away from) keeps its pacing.
self.onmessage = ({ data: { id, ms } }) => setTimeout(() => self.postMessage(id), ms);
