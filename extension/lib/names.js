// The names that travel between the extension and the host, as constants: every host
// message, every reply, sample status, sample error kind, run status, debugger condition, auto stop, auto
// reason, run end reason and host error. The host's enums are the source (host/src/protocol/names.rs writes
// tests/fixtures/names.json from them); extension/tests/names.test.js checks that each
// group here holds exactly the fixture's names, so neither side can rename one alone.
// POPUP_PHASE is the extension's own (the popup's state), not the host's.

import { PAGE } from './page-protocol.js';

/** The `type` of every message the extension sends the native host (PROTOCOL.md). */
export const HOST_MESSAGE = Object.freeze({
  hello: 'hello',
  runStarted: 'run-started',
  samples: 'samples',
  runFinished: 'run-finished',
  error: 'error',
  autoCheck: 'auto-check',
  workloadKey: 'workload-key',
  turn: 'turn',
});

/** The `type` of every reply the host sends back. */
export const HOST_REPLY = Object.freeze({
  hello: 'hello',
  runStarted: 'run-started',
  samplesAck: 'samples-ack',
  runFinished: 'run-finished',
  errorLogged: 'error-logged',
  workloadKey: 'workload-key',
  turn: 'turn',
  autoDecision: 'auto-decision',
  error: 'error',
});

/**
 * The run messages `unobserved serve` carries over HTTP (`/serve/<token>/runs/<id>/<name>`):
 * the host's, and the page protocol's own for a page per block (lib/page-protocol.js's
 * names, which the background answers itself on the native path).
 */
export const SERVE_MESSAGE = Object.freeze({
  samples: HOST_MESSAGE.samples,
  autoCheck: HOST_MESSAGE.autoCheck,
  runFinished: HOST_MESSAGE.runFinished,
  newPage: PAGE.newPage,
  ready: PAGE.ready,
});

/** A sample's `status`. */
export const SAMPLE_STATUS = Object.freeze({
  ok: 'ok',
  corrupted: 'corrupted',
  unsupported: 'unsupported',
  aborted: 'aborted',
  error: 'error',
});

/**
 * Why a sample failed (its `error`): what the page saw, or what the host found in its
 * sink's record. The numbers travel in their own fields (`http_status`, `bytes_sent`,
 * `bytes_received`) and the browser's own words in `rejection`; the words are words.js's.
 */
export const SAMPLE_ERROR = Object.freeze({
  fetchRejected: 'fetch-rejected',
  sinkStatus: 'sink-status',
  noReply: 'no-reply',
  differentBytes: 'different-bytes',
  noRecord: 'no-record',
  nothingReceived: 'nothing-received',
  moduleFailed: 'module-failed',
});

/** The workload-module contract this extension speaks: a module declares `export const unobserved = 1`. */
export const MODULE_CONTRACT = 1;

/**
 * How a workload module failed (a `module-failed` sample's `module_failure.kind`, with its
 * numbers: `timeout_ms`, or `directive` and `url`), and why one was not loaded (its `cause`).
 * The host's `ModuleFailure` and `NotLoaded`; every kind is in tests/fixtures/formats.json.
 */
export const MODULE_FAILURE = Object.freeze({
  notLoaded: 'not-loaded',
  threw: 'threw',
  timedOut: 'timed-out',
  blocked: 'blocked',
});

export const NOT_LOADED = Object.freeze({
  importFailed: 'import-failed',
  otherContract: 'other-contract',
  noDefaultFunction: 'no-default-function',
});

/** How a run ended (`run-finished`'s `status`; `stopped` and `timed-out` are `unobserved run`'s to say, `interrupted` the next `serve`'s). */
export const RUN_STATUS = Object.freeze({
  complete: 'complete',
  incomplete: 'incomplete',
  failed: 'failed',
  stopped: 'stopped',
  timedOut: 'timed-out',
  interrupted: 'interrupted',
});

/** The positive control's two halves (an arm's `condition`). */
export const CONDITION = Object.freeze({
  attached: 'attached',
  detached: 'detached',
});

/** Why an auto-sampled run stopped (`auto-decision`'s `stop`). */
export const AUTO_STOP = Object.freeze({
  settled: 'settled',
  budgetReps: 'budget-reps',
  budgetTime: 'budget-time',
});

/** An arm's integrity across its uploads, as the host's reports say it (an analysis's `integrity.status`). */
export const INTEGRITY = Object.freeze({
  intact: 'intact',
  corrupted: 'corrupted',
  unsupported: 'unsupported',
  aborted: 'aborted',
  error: 'error',
  noSamples: 'no-samples',
});

/** Why a run ended, typed, where the host knows (a run end's `end_reason`). */
export const END_REASON = Object.freeze({
  sinkUnreachable: 'sink-unreachable',
  sinkStalled: 'sink-stalled',
  pageStalled: 'page-stalled',
  pageNotBack: 'page-not-back',
  benchTabClosed: 'bench-tab-closed',
  hostGone: 'host-gone',
  backgroundStopped: 'background-stopped',
  pageFailed: 'page-failed',
  sampleNotStored: 'sample-not-stored',
});

/** Why an auto-sampled run goes on or stops (`auto-decision`'s `reason.kind`; `check-failed` is the page's own). */
export const AUTO_REASON = Object.freeze({
  settled: 'settled',
  budgetReps: 'budget-reps',
  budgetTime: 'budget-time',
  nothingToCompare: 'nothing-to-compare',
  notSettled: 'not-settled',
  checkFailed: 'check-failed',
});

/** The `name` of each numbered host error (PROTOCOL.md, error codes). */
export const HOST_ERROR = Object.freeze({
  frameTooLarge: 'frame-too-large',
  zeroLength: 'zero-length',
  truncatedFrame: 'truncated-frame',
  invalidUtf8: 'invalid-utf8',
  invalidJson: 'invalid-json',
  missingType: 'missing-type',
  unknownType: 'unknown-type',
  invalidField: 'invalid-field',
  replyTooLarge: 'reply-too-large',
  storeFailed: 'store-failed',
  invalidRunId: 'invalid-run-id',
  sinkUnavailable: 'sink-unavailable',
  transportUnavailable: 'transport-unavailable',
  unknownRun: 'unknown-run',
  invalidPlan: 'invalid-plan',
  turnFailed: 'turn-failed',
  sampleRefused: 'sample-refused',
  moduleUnavailable: 'module-unavailable',
});

/** The popup's `runState.phase`. */
export const POPUP_PHASE = Object.freeze({
  idle: 'idle',
  running: 'running',
  done: 'done',
  error: 'error',
});
