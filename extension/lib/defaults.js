// Names and defaults shared by every context.
import { PLAN_LIMITS } from './plan-limits.js';

export const HOST_NAME = 'org.unobserved.host';
// The body kinds and every plan limit come from the host's core (host/src/plan_limits.rs)
// as data, so the options page refuses exactly what the host and the CLI refuse. Body
// kind names are part of the data format: the host, the store and the reports use these.
export const BODY_KINDS = PLAN_LIMITS.body_kinds;
export const LIMITS = PLAN_LIMITS.limits;
/** An auto-sampled run's budget when none is set: the host's (plan_limits::AUTO_DEFAULT). */
export const AUTO_DEFAULT = PLAN_LIMITS.auto_default;
export const MIB = 1024 * 1024;

/**
 * The transports a run can upload over (host/src/arm.rs, Transport). TLS ones need the
 * local CA of `unobserved install --local-https` in an everyday browser.
 */
export const TRANSPORTS = Object.freeze({
  h1: 'HTTP/1.1 in the clear',
  'h1-tls': 'HTTP/1.1 over TLS (needs local HTTPS)',
  h2: 'HTTP/2 over TLS: Chromium streams a ReadableStream only over this (needs local HTTPS)',
});

export const DEFAULT_OPTIONS = Object.freeze({
  sizeMiB: 32,
  reps: 6,
  // After the first `reps`, add interleaved reps until every comparison is settled or
  // `maxSeconds` of the run have passed; off, the run is exactly `reps` reps.
  auto: true,
  maxSeconds: AUTO_DEFAULT.max_seconds,
  warmup: 1,
  bodies: BODY_KINDS,
  transports: ['h1'],
  // Empty means: the sink of the local host, as reported by `hello`.
  sinkUrl: '',
  // What the benchmark tab does when a popup run ends (AFTER_RUN).
  afterRun: 'summary',
});

/**
 * What happens to the benchmark tab at the end of a run: `summary` keeps it open on the
 * result, `return` closes it and brings back the tab the run started from, `close`
 * (runs the CLI started) just closes it.
 */
export const AFTER_RUN = Object.freeze({
  summary: 'Keep the tab open on a summary of the result',
  return: 'Close it and go back to the tab I was on',
});

/** The result as a page of its own: the popup's view, in a tab. */
export const SUMMARY_PAGE = 'popup/popup.html?view=tab';
export const WELCOME_PAGE = 'welcome/welcome.html';


/** The options' body size (in MiB, as the page asks for it) in bytes, as plans have it. */
const sizeBytes = (sizeMiB) => Math.round(Number(sizeMiB) * MIB);

/** A whole number within `{ min, max }`, a limit of LIMITS. */
const within = ({ min, max }, value) => Number.isInteger(Number(value)) && Number(value) >= min && Number(value) <= max;

export function planFromOptions(options) {
  const o = { ...DEFAULT_OPTIONS, ...options };
  return {
    size_bytes: sizeBytes(o.sizeMiB),
    reps: Number(o.reps),
    warmup: Number(o.warmup),
    bodies: o.bodies.filter((b) => BODY_KINDS.includes(b)),
    transports: o.transports.filter((t) => Object.hasOwn(TRANSPORTS, t)),
    ...(o.auto ? { auto: { max_reps: AUTO_DEFAULT.max_reps, max_seconds: Number(o.maxSeconds) } } : {}),
  };
}

/**
 * The transport a remote sink's uploads travel over, from the URL `unobserved sink`
 * printed: 'h1' for http://, 'h2' for https:// (which must pin the sink's certificate,
 * `#sha256=<64 hex digits>`, checked by the host); null for anything else. The host's
 * rule is host/src/sink/remote.rs; tests/fixtures/sink-urls.json drives both.
 */
export function sinkUrlTransport(url) {
  const [address, pin, ...more] = String(url).split('#');
  const m = /^(https?):\/\/[^/]+\/upload\/[A-Za-z0-9]+$/.exec(address);
  if (!m || more.length > 0) return null;
  if (m[1] === 'http') return pin === undefined ? 'h1' : null;
  const hex = pin?.startsWith('sha256=') ? pin.slice('sha256='.length).replaceAll(':', '') : '';
  return /^[0-9A-Fa-f]{64}$/.test(hex) ? 'h2' : null;
}

/** The host permission a remote sink needs: its scheme and host, any port (Firefox refuses a pattern that names one). */
export function sinkHostPermission(url) {
  const sink = new URL(url);
  return `${sink.protocol}//${sink.hostname}/*`;
}

export function validateOptions(o) {
  const errors = [];
  const size = LIMITS.size_bytes;
  if (!within(size, sizeBytes(o.sizeMiB))) errors.push(`Body size must be between ${size.min / 1024} KiB and ${size.max / MIB} MiB.`);
  if (!within(LIMITS.reps, o.reps)) errors.push(`Repetitions must be a whole number from ${LIMITS.reps.min} to ${LIMITS.reps.max}.`);
  if (o.auto && !within(LIMITS.auto_max_seconds, o.maxSeconds ?? DEFAULT_OPTIONS.maxSeconds)) {
    errors.push(`The time budget must be a whole number of seconds from ${LIMITS.auto_max_seconds.min} to ${LIMITS.auto_max_seconds.max}.`);
  }
  if (!within(LIMITS.warmup, o.warmup)) errors.push(`Warm-up must be a whole number from ${LIMITS.warmup.min} to ${LIMITS.warmup.max}.`);
  if (!Array.isArray(o.bodies) || o.bodies.length === 0) errors.push('Pick at least one body kind.');
  const transports = o.transports ?? DEFAULT_OPTIONS.transports;
  if (!Array.isArray(transports) || transports.length === 0) errors.push('Pick at least one transport.');
  const sinkTransport = o.sinkUrl ? sinkUrlTransport(o.sinkUrl) : null;
  if (sinkTransport && transports.some((t) => t !== sinkTransport)) {
    errors.push(`A remote sink's transport is its URL's: tick only ${sinkTransport} (${TRANSPORTS[sinkTransport]}) for this sink URL, or clear it.`);
  }
  if (o.afterRun !== undefined && !Object.hasOwn(AFTER_RUN, o.afterRun)) errors.push('Pick what the benchmark tab does after a run.');
  if (o.sinkUrl && !sinkTransport) {
    errors.push('Sink URL must be what `unobserved sink` printed: http://HOST:PORT/upload/TOKEN, or with --tls https://HOST:PORT/upload/TOKEN#sha256=… (the certificate it pins); or leave it empty.');
  }
  return errors;
}
