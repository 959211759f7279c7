// Words and shapes for the popup, from the host's data. Pure, so the tests pin down what
// the user reads. Figures and verdicts are written by lib/words.js, by the host's rules.
import { HOST_FAILURE } from './host-failure.js';
import { MIB, OPTION_PROBLEM, PLAN_PROBLEM, TRANSPORTS } from './defaults.js';
import { INTEGRITY } from './names.js';
import { armIn, comparisonLine, comparisonParts, formatMbps, formatRange, formatShare, integrityDetail, integrityWord, legendText, partFigures, sideLabel } from './words.js';

/**
 * The reps a run takes before any budget may stop it, as the host said
 * (Plan::minimum_reps): of a run's state, or of serve's offer (both carry `plan`).
 */
function firstReps(state) {
  return state.minimum_reps ?? state.plan.reps;
}

export function progressText(state) {
  if (!state) return '';
  const { done = 0, total = 0, step } = state;
  const budget = state.plan?.auto;
  const remaining = Math.max(total - done, 0);
  if (!step) return budget ? 'Starting…' : `Starting… ${remaining} uploads to go`;
  const what = step.phase === 'warmup' ? `warm-up ${step.rep + 1}` : `rep ${step.rep + 1}`;
  const condition = step.arm?.condition ? ` (debugger ${step.arm.condition})` : '';
  const where = `${step.label}${condition}, ${what}`;
  if (!budget) return `${where} · ${done}/${total} measured · ${remaining} remaining`;
  const auto = state.auto;
  if (!auto) return `${where} · ${done} measured · the first ${firstReps(state)} reps, then until every comparison is settled (at most ${budget.max_seconds} s)`;
  return `${where} · ${done} measured · ${settledText(auto)}`;
}

/**
 * "1 of 2 comparisons settled (Blob vs Uint8Array: 1.18x [1.11–1.26] faster) · 41 s
 * left", from the host's auto-decision: a verdict is seen as soon as it stands.
 */
export function settledText({ settled, comparisons, seconds_left: left, settled_verdicts: verdicts = [] }) {
  const which = verdicts.length ? ` (${verdicts.map(comparisonLine).join('; ')})` : '';
  return `${settled} of ${comparisons} comparisons settled${which} · ${left} s left`;
}

/**
 * The progress bar: uploads of a fixed plan, or the time budget of an auto-sampled
 * one as the host last counted it (`seconds_left` of its auto-decision).
 */
export function progressBar(state) {
  const budget = state?.plan?.auto;
  if (!budget) return { value: state?.done || 0, max: state?.total || 1 };
  const left = state.auto?.seconds_left ?? budget.max_seconds;
  return { value: budget.max_seconds - left, max: budget.max_seconds };
}

/**
 * An arm against its baseline as the reports' table says it: "1.05x [0.81–1.76] not
 * resolved vs Uint8Array", "depends vs Uint8Array: 0.70x [0.65–0.76] slower when quiet;
 * 1.61x [1.20–2.28] faster with …", "baseline", or a dash.
 */
export function versus(arm) {
  const { head, parts } = versusParts(arm);
  return parts.length ? `${head}: ${parts.join('; ')}` : head;
}

/** `versus` as its head and its parts, for a view that shows each part on a line of its own. */
export function versusParts(arm) {
  if (!arm.comparison) return { head: arm.baseline ? 'baseline' : '–', parts: [] };
  const { head, parts } = comparisonParts(arm.comparison);
  return { head: `${head} vs ${sideLabel(arm.comparison.baseline)}`, parts };
}

/**
 * The popup's table, as text cells with a class each: body, n, median, range, the
 * median's share of what the host's own client carried to the same sink (across a
 * real link, the link's ceiling), the host's ratio and verdict, integrity. The ratio
 * is the host's ratio of the two medians shown, so the two columns cannot point
 * opposite ways.
 */
export function tableRows(arms) {
  return arms.flatMap((a) => armLines(a).map((line) => figureCells(a, line)));
}

/**
 * An arm's lines as the table shows them (export/document.rs, arm_rows): the arm
 * itself; in a run measured in more than one condition, a head with its count and the
 * verdict without its parts, then one line per condition with that condition's
 * figures and part. Medians and ranges are never pooled across conditions.
 */
export function armLines(a) {
  const conditions = a.conditions ?? [];
  if (conditions.length === 0) return [{ ...a, versus: versus(a) }];
  const head = { ...a, median_mbps: null, min_mbps: null, max_mbps: null, ceiling_share: null, versus: versusParts(a).head, head: true };
  return [head, ...conditions.map((c) => ({ ...c, body: armIn(a.body, c.condition), versus: partVersus(a, c) }))];
}

/** An arm's comparison in one condition: "0.70x [0.66–0.76] slower vs Uint8Array", "baseline", or a dash. */
export function partVersus(arm, line) {
  const c = arm.comparison;
  if (!c) return arm.baseline ? 'baseline' : '–';
  if (!line.part) return '–';
  return `${partFigures(line.part, c.horizon)} vs ${sideLabel(c.baseline)}`;
}

function figureCells(arm, line) {
  return [
    [line.body, ''],
    [String(line.n), 'num'],
    [formatMbps(line.median_mbps), 'num'],
    [formatRange(line.min_mbps, line.max_mbps), 'num'],
    [formatShare(line.ceiling_share), 'num'],
    [line.versus, 'vs'],
    [integrityWord(arm.integrity), arm.integrity.status === INTEGRITY.intact ? 'ok' : 'bad'],
  ];
}

/**
 * The chart: median bar and min–max whisker per arm, and each arm's sink ceiling (the
 * sink of its own transport, from the host) as a dashed mark. `scale` is the host's
 * (`analysis.chart`, report/chart_scale.rs): the right edge is where the arms reach,
 * so the longest bar fills the chart; a whisker past the edge is cut there, and a
 * ceiling past it is marked at the edge and written in the legend. `arms` is the
 * host's analysis too: which arms are intact or sink-bound is its call, not a rule
 * repeated here. Labels start right of every bar, whisker and ceiling mark.
 */
export function chartModel(arms, width, scale) {
  // A state stored before the host sent a scale: the widest whisker sets it.
  const top = scale?.top_mbps ?? Math.max(1, ...arms.map((a) => a.max_mbps ?? 0));
  const at = (v) => (v === null || v === undefined ? null : (Math.min(v, top) / top) * width);
  // One bar per arm, or per arm and condition (never one pooled across conditions).
  const bars = arms.flatMap((a) => armLines(a).filter((l) => !l.head).map((l) => ({ ...a, body: l.body, median_mbps: l.median_mbps, min_mbps: l.min_mbps, max_mbps: l.max_mbps })));
  const rows = bars.map((a) => ({
    body: a.body,
    bar: at(a.median_mbps) ?? 0,
    whiskerFrom: at(a.min_mbps),
    whiskerTo: at(a.max_mbps),
    whiskerCut: (a.max_mbps ?? 0) > top,
    ceilingX: at(a.ceiling_mbps),
    ceilingOffScale: (a.ceiling_mbps ?? 0) > top,
    label: a.median_mbps === null ? integrityWord(a.integrity) : `${formatMbps(a.median_mbps)} Mbps`,
    intact: a.integrity.status === INTEGRITY.intact,
    sinkBound: a.sink_bound,
  }));
  // Clear of an off-scale ceiling's arrowhead too (7 px past the edge).
  const gap = rows.some((r) => r.ceilingOffScale) ? 12 : 6;
  const labelX = Math.max(0, ...rows.map((r) => Math.max(r.bar, r.whiskerTo ?? 0, r.ceilingX ?? 0))) + gap;
  return { rows, legend: legendText(scale?.legend), labelX };
}

/**
 * Every arm whose bytes did not arrive intact, with what arrived or what the browser said
 * (the table has room only for the word). The host's notes carry the reasons.
 */
export function integrityFindings(arms) {
  return arms
    .filter((a) => a.integrity.status !== INTEGRITY.intact)
    .map((a) => {
      const detail = integrityDetail(a.integrity);
      return `${a.body}: ${integrityWord(a.integrity)}${detail ? ` (${detail})` : ''}.`;
    });
}

/**
 * What distinguishes one result from the next: "32 MiB × 6 reps · run 20261130-… · 14:03".
 * Without it, two runs before and after an Options change look alike.
 */
export function resultLabel(state) {
  const parts = [];
  const p = state?.plan;
  if (p) {
    const mib = p.size_bytes / (1024 * 1024);
    const size = Number.isInteger(mib) ? `${mib} MiB` : `${p.size_bytes} B`;
    // Auto-sampled, the plan's reps are where it started: say how many it took.
    const taken = Math.max(0, ...(state.samples ?? []).map((s) => s.rep + 1));
    parts.push(p.auto ? `${size} × ${taken} reps (auto from ${firstReps(state)})` : `${size} × ${firstReps(state)} reps`);
  }
  if (state?.run_id) parts.push(`run ${state.run_id}`);
  if (state?.finished_at) parts.push(new Date(state.finished_at).toISOString().slice(11, 16) + ' UTC');
  return parts.join(' · ');
}

/**
 * Why the last run did not finish, in words, with the fix. `problem` is `{ error,
 * failure }`: host failures (a HOST_FAILURE kind) get the install advice, anything
 * else does not.
 */
export function explainRunError(problem, browser) {
  if (problem?.failure) return explainHostError(problem, browser);
  return { what: 'The last run did not finish.', fix: 'Click Run to start a new one.', detail: problem?.error ?? '' };
}

/** What went wrong reaching the native host, by its HOST_FAILURE kind, with the fix. */
export function explainHostError(problem, browser) {
  const name = browser || 'your browser';
  const detail = problem?.error ?? '';
  const install = `Run \`unobserved install\` in a terminal, then restart ${name}. \`unobserved doctor\` checks the setup.`;
  switch (problem?.failure) {
    case HOST_FAILURE.storeFailed:
      return {
        what: "Unobserved's helper could not save the results (is the disk full, or the state folder read-only?). Nothing partial was written.",
        fix: 'Free some disk space or fix the permissions of the state folder (`unobserved doctor` shows where it is), then Run again.',
        detail,
      };
    case HOST_FAILURE.notRegistered:
      return {
        what: `Unobserved's helper program is not registered with ${name}. (A browser started with its own --user-data-dir looks only in that folder: register it there with \`unobserved install --profile <that folder>\`.)`,
        fix: install,
        detail,
      };
    case HOST_FAILURE.forbidden:
      return {
        what: 'The helper program is registered, but not for this copy of the extension.',
        fix: `Run \`unobserved install --extension-id <this extension id>\` in a terminal, then restart ${name}.`,
        detail,
      };
    case HOST_FAILURE.exited:
      return { what: 'The helper program started but stopped unexpectedly.', fix: install, detail };
    default:
      return { what: 'Unobserved could not talk to its helper program.', fix: install, detail };
  }
}

/** Where the toolbar button hides on first install, and how to pin it. */
export function pinInstructions(chromiumFamily) {
  return chromiumFamily
    ? 'Click the Extensions button (the puzzle piece right of the address bar), then the pin beside Unobserved.'
    : 'Tick “Pin extension to toolbar” in the message Firefox showed when it added Unobserved. Later: the Extensions button (the puzzle piece right of the address bar), the gear beside Unobserved, “Pin to Toolbar”. Its line there says “Can\'t read and change data on this site”: that is expected, Unobserved reads no page.';
}

/** What `serve`'s page offers to run: "Blob, Uint8Array · 1 MiB per upload × 6 reps, 1 warm-up". */
export function offerText(offer) {
  const p = offer.plan;
  const mib = p.size_bytes / MIB;
  const size = Number.isInteger(mib) ? `${mib} MiB` : `${p.size_bytes} bytes`;
  const first = firstReps(offer);
  const reps = p.auto ? `${first} reps or more (auto, up to ${p.auto.max_reps})` : `${first} reps`;
  return `${offer.arms.join(', ')} · ${size} per upload × ${reps}, ${p.warmup} warm-up`;
}

/**
 * The extension pages' own sentences (popup, options, welcome, the benchmark and serve
 * pages, the background's refusals), by kind: a page names a NOTE and shows
 * `noteText(kind, values)`; the words live only here.
 */
export const NOTE = Object.freeze({
  noBackgroundAnswer: 'no-background-answer',
  controlNeedsPermission: 'control-needs-permission',
  controlNeedsChromium: 'control-needs-chromium',
  controlUnavailable: 'control-unavailable',
  debuggerCheck: 'debugger-check',
  sinkNotGranted: 'sink-not-granted',
  saved: 'saved',
  defaultsFilled: 'defaults-filled',
  checking: 'checking',
  hostAnswered: 'host-answered',
  versionsMatch: 'versions-match',
  versionsDiffer: 'versions-differ',
  step: 'step',
  freshPage: 'fresh-page',
  benchDone: 'bench-done',
  failed: 'failed',
  benchNotConnected: 'bench-not-connected',
  serveNeedsToken: 'serve-needs-token',
  serveDone: 'serve-done',
  serveStored: 'serve-stored',
  runAgain: 'run-again',
  running: 'running',
  title: 'title',
  sampleLine: 'sample-line',
  armUnder: 'arm-under',
  checkWhileRunning: 'check-while-running',
  runInProgress: 'run-in-progress',
  encryptedNeedsLocalSink: 'encrypted-needs-local-sink',
  hostDisconnected: 'host-disconnected',
  hostNotConnected: 'host-not-connected',
  endNotRecorded: 'end-not-recorded',
  recordedAs: 'recorded-as',
  recordedShort: 'recorded-short',
  conditionNotSet: 'condition-not-set',
  noFreshPage: 'no-fresh-page',
  noModuleSeed: 'no-module-seed',
  sinkRefusedTest: 'sink-refused-test',
  noTurn: 'no-turn',
  noSinkFor: 'no-sink-for',
  hostStatus: 'host-status',
  serveNoDebugger: 'serve-no-debugger',
});

const NOTE_TEXT = Object.freeze({
  [NOTE.noBackgroundAnswer]: () => 'no answer from the background',
  [NOTE.controlNeedsPermission]: () => 'Control (the same run with a debugger attached) needs the debugger permission, which this browser does not let an extension ask for later. Install the control build (`unobserved pack --with-control`), or run `unobserved run --control` in a terminal.',
  [NOTE.controlNeedsChromium]: () => 'Control not available here: it needs the chrome.debugger API, which only Chromium-family browsers have.',
  [NOTE.controlUnavailable]: () => 'Control not available: the control needs the chrome.debugger API, which only Chromium-family browsers (Chrome, Edge, Brave, …) have; Firefox does not.',
  [NOTE.debuggerCheck]: () => 'Each run records whether any debugger (DevTools, an automation tool) was attached to the benchmark tab. Unobserved only asks whether one is attached, except during a Control run.',
  [NOTE.sinkNotGranted]: ({ origin }) => `Unobserved needs permission to upload to ${origin}; it was not granted, so nothing was saved.`,
  [NOTE.saved]: () => 'Saved. The next run uses these settings.',
  [NOTE.defaultsFilled]: () => 'Defaults filled in. Click Save to keep them.',
  [NOTE.checking]: () => 'Checking…',
  [NOTE.hostAnswered]: ({ version, sink }) => `The helper answered: unobserved ${version}, sink ready at ${sink}.`,
  [NOTE.versionsMatch]: () => 'Everything is in place.',
  [NOTE.versionsDiffer]: ({ version }) => `This extension is version ${version}; the two should match. Update whichever is older.`,
  [NOTE.step]: ({ step, what }) => `${step.phase === 'warmup' ? 'Warm-up' : 'Rep'} ${step.rep + 1}: ${what}`,
  [NOTE.freshPage]: ({ block }) => `Block ${block}: a fresh page`,
  [NOTE.benchDone]: () => 'Done. This tab will close.',
  [NOTE.failed]: ({ message }) => `Failed: ${message}`,
  [NOTE.benchNotConnected]: () => 'The extension is not connected. Start a run from the Unobserved button.',
  [NOTE.serveNeedsToken]: () => 'Open this page with the URL `unobserved serve` printed (it carries the session token).',
  [NOTE.serveDone]: ({ runId }) => `Done: run ${runId}.`,
  [NOTE.serveStored]: ({ runId }) => `Done: run ${runId}, stored by the host.`,
  [NOTE.runAgain]: () => 'Run again',
  [NOTE.running]: () => 'Running…',
  [NOTE.armUnder]: ({ label, condition }) => `${label}${condition ? ` · debugger ${condition}` : ''}`,
  [NOTE.checkWhileRunning]: () => 'A run is in progress; check again when it ends.',
  [NOTE.runInProgress]: () => 'A run is already in progress.',
  [NOTE.encryptedNeedsLocalSink]: () => 'Encrypted workloads need the local sink: the key goes to it over native messaging, never over the network.',
  [NOTE.hostDisconnected]: () => 'the native host disconnected',
  [NOTE.hostNotConnected]: () => 'the native host is not connected',
  [NOTE.endNotRecorded]: ({ reason, message }) => `${reason ?? 'The run finished'}, but its end could not be recorded: ${message}`,
  [NOTE.recordedAs]: ({ recorded, why }) => `The host recorded this run as ${recorded}: ${why}.`,
  [NOTE.recordedShort]: ({ recorded }) => `The host recorded this run as ${recorded}: it stored fewer samples than the plan needs.`,
  [NOTE.conditionNotSet]: ({ attach, error }) => `could not ${attach ? 'attach' : 'detach'} the debugger: ${error}`,
  [NOTE.noFreshPage]: ({ rep, error }) => `no fresh page for the block at rep ${rep + 1}: ${error}`,
  [NOTE.noModuleSeed]: () => 'the plan has workload modules but the host gave no seed for their bytes; nothing was measured',
  [NOTE.sinkRefusedTest]: ({ origin, status, rejection, resuming }) => `the sink at ${origin} did not take a 16-byte test upload (${rejection ?? `it answered HTTP ${status}`}); ${resuming ? 'nothing more was measured; the samples stored before are kept' : 'nothing was measured'}`,
  [NOTE.noTurn]: ({ error }) => `no turn for the next rep: ${error}`,
  [NOTE.noSinkFor]: ({ transport }) => `the plan uploads over ${transport}, but no ${transport} sink was given; nothing was measured`,
  [NOTE.hostStatus]: ({ status }) => `the host answered HTTP ${status}`,
  [NOTE.serveNoDebugger]: () => 'a page served by `unobserved serve` cannot attach a debugger',
  [NOTE.title]: ({ mbps }) => `Unobserved: ${mbps} Mbps`,
  [NOTE.sampleLine]: ({ what, rep, status, mbps, failure }) => `${what} rep ${rep + 1}: ${status}${mbps ? ` ${mbps} Mbps` : ''}${failure ? ` (${failure})` : ''}`,
});

/** A NOTE in words, with its `values` (e.g. `{ origin }`) filled in. */
export function noteText(kind, values = {}) {
  return NOTE_TEXT[kind](values);
}

/** A problem of validateOptions in the options page's words. */
export function problemText({ kind, limit, transport }) {
  switch (kind) {
    case PLAN_PROBLEM.sizeTooSmall:
    case PLAN_PROBLEM.sizeTooLarge:
      return `Body size must be between ${limit.min / 1024} KiB and ${limit.max / MIB} MiB.`;
    case PLAN_PROBLEM.repsOutOfRange:
      return `Repetitions must be a whole number from ${limit.min} to ${limit.max}.`;
    case PLAN_PROBLEM.autoSecondsOutOfRange:
      return `The time budget must be a whole number of seconds from ${limit.min} to ${limit.max}.`;
    case PLAN_PROBLEM.warmupOutOfRange:
      return `Warm-up must be a whole number from ${limit.min} to ${limit.max}.`;
    case PLAN_PROBLEM.noArms:
      return 'Pick at least one body kind or workload module.';
    case OPTION_PROBLEM.noTransports:
      return 'Pick at least one transport.';
    case OPTION_PROBLEM.remoteSinkTransport:
      return `A remote sink's transport is its URL's: tick only ${transport} (${TRANSPORTS[transport]}) for this sink URL, or clear it.`;
    case OPTION_PROBLEM.afterRun:
      return 'Pick what the benchmark tab does after a run.';
    case OPTION_PROBLEM.load:
      return 'The load tick box is either ticked or not.';
    case OPTION_PROBLEM.plainSinkUpgraded:
      return 'Firefox sends an extension\'s uploads to a plain http:// sink that is not on this machine as https:// (upgrade-insecure-requests, in the default Content-Security-Policy of Manifest V3 extension pages), and a plain sink cannot answer that. Start the sink with `unobserved sink --tls` and paste the https://…#sha256=… URL it prints.';
    default:
      return 'Sink URL must be what `unobserved sink` printed: http://HOST:PORT/upload/TOKEN, or with --tls https://HOST:PORT/upload/TOKEN#sha256=… (the certificate it pins); or leave it empty.';
  }
}
