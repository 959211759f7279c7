// The benchmark page's settle time (lib/pacing.js), kept in a worker: browsers hold
// back the timers of a page in a background tab (to once a second: seen here in
// Chromium, where a minute's reps fell from ~60 to 15), not a dedicated worker's. A
// run whose tab is not in front (every run `unobserved run` starts, or a popup run
// the user tabbed away from) keeps its pacing.
self.onmessage = ({ data: { id, ms } }) => setTimeout(() => self.postMessage(id), ms);
