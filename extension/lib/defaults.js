// Names and defaults shared by every context.
import { PLAN_LIMITS } from './plan-limits.js';
import { geckoUpgradesToHttps, parseSinkUrl, sinkTransport } from './sink-url.js';

export const HOST_NAME = 'org.unobserved.host';
// The body kinds and every plan limit come from the host's core (host/src/domain/plan/validate.rs)
// as data, so the options page refuses exactly what the host and the CLI refuse. Body
// kind names are part of the data format: the host, the store and the reports use these.
export const BODY_KINDS = PLAN_LIMITS.body_kinds;
export const LIMITS = PLAN_LIMITS.limits;
/** An auto-sampled run's budget when none is set: the host's (plan_limits::AUTO_DEFAULT). */
export const AUTO_DEFAULT = PLAN_LIMITS.auto_default;
export const MIB = 1024 * 1024;
/**
 * Every load a run can put on the machine, the host's names in `--load none,cpu`'s order
 * (domain/conditions.rs, Load): the load tick box sends them all, so blocks run in turn
 * quiet and with the host's own CPU load.
 */
export const LOADS = PLAN_LIMITS.loads;

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
  // The registered workload modules ticked as arms, by name (`unobserved workload add`).
  modules: [],
  // Load as a dimension (the popup's and the options' tick box): blocks in turn quiet and
  // with a CPU load the host generates, each comparison given per condition.
  load: false,
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

/** The ticked modules that are still registered (`registered`: hello's `modules`). */
export function tickedModules(ticked, registered) {
  const names = new Set(registered.map((m) => m.name));
  return (Array.isArray(ticked) ? ticked : []).filter((name) => names.has(name));
}

/** The result as a page of its own: the popup's view, in a tab. */
export const SUMMARY_PAGE = 'popup/popup.html?view=tab';
export const WELCOME_PAGE = 'welcome/welcome.html';


/** The options' body size (in MiB, as the page asks for it) in bytes, as plans have it. */
const sizeBytes = (sizeMiB) => Math.round(Number(sizeMiB) * MIB);

/** A whole number within `{ min, max }`, a limit of LIMITS. */
const within = ({ min, max }, value) => Number.isInteger(Number(value)) && Number(value) >= min && Number(value) <= max;

export function planFromOptions(options) {
  const o = { ...DEFAULT_OPTIONS, ...options };
  const modules = Array.isArray(o.modules) ? o.modules : [];
  return {
    ...(modules.length ? { modules: modules.map((name) => ({ name })) } : {}),
    size_bytes: sizeBytes(o.sizeMiB),
    reps: Number(o.reps),
    warmup: Number(o.warmup),
    bodies: o.bodies.filter((b) => BODY_KINDS.includes(b)),
    transports: o.transports.filter((t) => Object.hasOwn(TRANSPORTS, t)),
    ...(o.auto ? { auto: { max_reps: AUTO_DEFAULT.max_reps, max_seconds: Number(o.maxSeconds) } } : {}),
    ...(o.load === true ? { loads: LOADS } : {}),
  };
}

/**
 * The plan's rules an option can break, by the host's own names (PlanError's kinds, error
 * 16's `kind`): the generated module lists them, and extension/tests/defaults.test.js
 * checks that each one here is there.
 */
export const PLAN_PROBLEM = Object.freeze({
  sizeTooSmall: 'size-too-small',
  sizeTooLarge: 'size-too-large',
  repsOutOfRange: 'reps-out-of-range',
  warmupOutOfRange: 'warmup-out-of-range',
  autoSecondsOutOfRange: 'auto-seconds-out-of-range',
  noArms: 'no-arms',
});

/** What only the options have: a plan has no sink URL or after-run choice. */
export const OPTION_PROBLEM = Object.freeze({
  noTransports: 'no-transports',
  remoteSinkTransport: 'remote-sink-transport',
  afterRun: 'after-run',
  sinkUrl: 'sink-url',
  /** Firefox would upgrade the plain sink's uploads to https:// (off loopback). */
  plainSinkUpgraded: 'plain-sink-upgraded',
  load: 'load',
});

/**
 * Why these options cannot be saved, as `{ kind, limit? }`, one per broken rule. `gecko`:
 * the browser is Firefox, whose extension pages cannot reach a plain sink off loopback.
 */
export function validateOptions(o, { gecko = false } = {}) {
  const problems = [];
  const size = sizeBytes(o.sizeMiB);
  if (!within(LIMITS.size_bytes, size)) {
    problems.push({ kind: size < LIMITS.size_bytes.min || !Number.isFinite(size) ? PLAN_PROBLEM.sizeTooSmall : PLAN_PROBLEM.sizeTooLarge, limit: LIMITS.size_bytes });
  }
  if (!within(LIMITS.reps, o.reps)) problems.push({ kind: PLAN_PROBLEM.repsOutOfRange, limit: LIMITS.reps });
  if (o.auto && !within(LIMITS.auto_max_seconds, o.maxSeconds ?? DEFAULT_OPTIONS.maxSeconds)) {
    problems.push({ kind: PLAN_PROBLEM.autoSecondsOutOfRange, limit: LIMITS.auto_max_seconds });
  }
  if (!within(LIMITS.warmup, o.warmup)) problems.push({ kind: PLAN_PROBLEM.warmupOutOfRange, limit: LIMITS.warmup });
  const ticked = (list) => Array.isArray(list) && list.length > 0;
  if (!ticked(o.bodies) && !ticked(o.modules)) problems.push({ kind: PLAN_PROBLEM.noArms });
  const transports = o.transports ?? DEFAULT_OPTIONS.transports;
  if (!Array.isArray(transports) || transports.length === 0) problems.push({ kind: OPTION_PROBLEM.noTransports });
  // A remote sink's transport is its URL's: h2 for https (pinned TLS; h1-tls when it ends &transport=h1-tls), h1 for http.
  const over = o.sinkUrl ? sinkTransport(o.sinkUrl) : null;
  if (over && transports.some((t) => t !== over)) problems.push({ kind: OPTION_PROBLEM.remoteSinkTransport, transport: over });
  if (o.afterRun !== undefined && !Object.hasOwn(AFTER_RUN, o.afterRun)) problems.push({ kind: OPTION_PROBLEM.afterRun });
  if (o.sinkUrl && !parseSinkUrl(o.sinkUrl)) problems.push({ kind: OPTION_PROBLEM.sinkUrl });
  if (gecko && o.sinkUrl && geckoUpgradesToHttps(o.sinkUrl)) problems.push({ kind: OPTION_PROBLEM.plainSinkUpgraded });
  if (o.load !== undefined && typeof o.load !== 'boolean') problems.push({ kind: OPTION_PROBLEM.load });
  return problems;
}
