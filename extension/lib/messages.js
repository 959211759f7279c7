// Messages the extension's own pages (popup, welcome) send to the background. The
// background answers each from one handler table (background/handlers.js); every reply
// is `{ ok: true, … }` or `{ ok: false, error }`.
export const MESSAGE = Object.freeze({
  /** `{ control }` → a run starts in a new benchmark tab. */
  startRun: 'start-run',
  /** → `{ version, sink }` of the native host, as doctor checks it from the browser's side. */
  checkHost: 'check-host',
  /** → `{ modules }`: the workload modules registered with the host (`unobserved workload add`). */
  registeredModules: 'registered-modules',
});
