// The page protocol: what the benchmark page and the background say to each other
// (PROTOCOL.md, "Page ↔ extension"). The page is served by the sink as an ordinary web
// page, so it reaches the background through the relay content script with
// window.postMessage (marked with `source`); opened as the extension's own page, it
// uses a runtime port named BENCH_PORT directly. Either way the messages are these.
//
// content/relay.js is a classic content script and cannot import this module; it
// repeats the two markers and the port name, and tests/relay.test.js checks that it
// matches these.

export const FROM_PAGE = 'unobserved-page';
export const FROM_EXTENSION = 'unobserved-extension';
export const BENCH_PORT = 'unobserved-bench';

/** Page → background. */
export const PAGE = Object.freeze({
  /** Asked every 500 ms until the plan arrives. */
  ready: 'ready',
  /** `{ request_id, attached }`: a control run switches condition; answered by conditionSet. */
  setCondition: 'set-condition',
  /** `{ step }`: the upload about to run, for the popup's progress. */
  progress: 'progress',
  /** `{ sample }`: one measured upload, paired with the sink's verdict. */
  sample: 'sample',
  /** `{ request_id, reps_done }`: --auto asks whether to go on; answered by autoDecision. */
  autoCheck: 'auto-check',
  /** `{ request_id }`: an interleaved build waits for its turn before a rep; answered by turnGiven. */
  turn: 'turn',
  /**
   * `{ request_id, rep }`: the next block begins at `rep` in a fresh benchmark page (its
   * samples so far stored first); answered by newPageGranted, then the page reloads and
   * its new self is handed the plan with `resume`.
   */
  newPage: 'new-page',
  /** `{ auto_reason }`: every step ran (the last auto-decision's typed `reason`, or null). */
  done: 'done',
  /** `{ error }`: the page could not go on. */
  failed: 'failed',
});

/** Background → page. */
export const EXTENSION = Object.freeze({
  /**
   * `{ plan, upload_url, run_id, workload_key, fresh_pages, resume }`: answers ready.
   * `fresh_pages`: a page per block; `resume`: `{ rep, condition }` for a later page.
   */
  plan: 'plan',
  /** `{ request_id, ok, error? }`. */
  conditionSet: 'condition-set',
  /** `{ request_id, more, reason: { kind, … }, progress: { settled, comparisons, seconds_left } }`. */
  autoDecision: 'auto-decision',
  /** `{ request_id, ok, error? }`: a fresh page may take over the run. */
  newPageGranted: 'new-page-granted',
  /** `{ request_id, ok, error? }`: this build's turn has come (or could not). */
  turnGiven: 'turn-given',
  /** Sent by the relay (or the page's own port) when the background went away. */
  disconnected: 'disconnected',
});
