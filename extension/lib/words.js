// Numbers and verdicts in words, by the host's rules (host/src/export/words.rs): the
// popup, the summary tab and `serve`'s page write a figure as every report does.
// tests/fixtures/formats.json is written from the host's functions and
// extension/tests/words.test.js holds these to it, case by case.

import { AUTO_REASON, END_REASON, INTEGRITY, MODULE_CONTRACT, MODULE_FAILURE, NOT_LOADED, SAMPLE_ERROR } from './names.js';

/**
 * `v.toFixed(digits)`, but an exact tie rounds to even, as Rust's formatting does
 * (toFixed rounds it up): 100.5 -> "100", 0.125 -> "0.12".
 */
export function fixed(v, digits) {
  const [whole, fraction = ''] = v.toFixed(100).split('.');
  if (!/^50*$/.test(fraction.slice(digits))) return v.toFixed(digits);
  const kept = digits === 0 ? whole : `${whole}.${fraction.slice(0, digits)}`;
  return Number(kept.at(-1)) % 2 === 0 ? kept : v.toFixed(digits);
}

/** Whole Mbps, with decimals where whole numbers would round tiny bodies to 0: "0.01", "42.3", "2190". */
export function formatMbps(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v < 10) return fixed(v, 2);
  if (v < 100) return fixed(v, 1);
  return fixed(v, 0);
}

/** "702–1036", or a single dash when there is no intact sample. */
export function formatRange(min, max) {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return '–';
  return `${formatMbps(min)}–${formatMbps(max)}`;
}

/** A median as a share of its link's (or sink's) ceiling: "76%"; a dash for none. */
export function formatShare(s) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  return `${fixed(s * 100, 0)}%`;
}

/** A horizon as a percentage: "5", "2.5". */
function percent(h) {
  const p = h * 100;
  return Math.abs(p - Math.round(p)) < 1e-9 ? fixed(p, 0) : fixed(p, 1);
}

/** The words of each verdict the host gives (stats::compare::Verdict). */
const VERDICT_WORDS = Object.freeze({
  faster: () => 'faster',
  slower: () => 'slower',
  same: (horizon) => `same within ±${percent(horizon)}%`,
  'not-resolved': () => 'not resolved',
  'not-comparable': () => 'not comparable',
  depends: () => 'depends',
});

export function verdictWords(verdict, horizon) {
  return VERDICT_WORDS[verdict]?.(horizon) ?? verdict;
}

/** "1.95x [1.73–2.33]" at `digits` decimals, or the ratio with why it has no interval. */
export function formatRatio({ ratio, ci_low: lo, ci_high: hi }, digits) {
  const r = `${fixed(ratio, digits)}x`;
  if (lo === null || lo === undefined || hi === null || hi === undefined) return `${r} [no 95% interval below 4 samples per arm]`;
  return `${r} [${fixed(lo, digits)}–${fixed(hi, digits)}]`;
}

/**
 * A comparison as its head and its parts (per condition, or blocks that parted), each in
 * words: `{ head: "depends", parts: ["0.70x [0.65–0.76] slower when quiet", …] }`, or
 * `{ head: "1.26x [1.18–1.36] faster", parts: [] }` without parts.
 */
export function comparisonParts(c) {
  const parts = c.parts ?? [];
  if (parts.length === 0) return { head: `${formatRatio(c, 2)} ${verdictWords(c.verdict, c.horizon)}`, parts: [] };
  const head = c.verdict === 'depends' ? 'depends' : `${fixed(c.ratio, 2)}x ${verdictWords(c.verdict, c.horizon)}`;
  return { head, parts: parts.map((p) => partText(p, c.horizon)) };
}

/** "1.26x [1.18–1.36] faster"; with parts, "depends: 0.70x [0.65–0.76] slower when quiet; 1.61x […] faster with …". */
export function formatComparison(c) {
  const { head, parts } = comparisonParts(c);
  return parts.length ? `${head}: ${parts.join('; ')}` : head;
}

/** One part's figures and verdict: "0.70x [0.65–0.76] slower". */
export function partFigures(p, horizon) {
  const hasInterval = p.ci_low !== null && p.ci_low !== undefined && p.ci_high !== null && p.ci_high !== undefined;
  const figures = hasInterval ? `${fixed(p.ratio, 2)}x [${fixed(p.ci_low, 2)}–${fixed(p.ci_high, 2)}]` : `${fixed(p.ratio, 2)}x`;
  const verdict = verdictWords(p.verdict, horizon);
  return p.too_few_blocks ? `${figures} ${verdict} (too few blocks to judge)` : `${figures} ${verdict}`;
}

/** One part of a comparison: "0.70x [0.65–0.76] slower when quiet", "1.95x faster in block(s) 2, 4". */
function partText(p, horizon) {
  const of = p.of === 'blocks' ? `in block(s) ${blockList(p.blocks)}` : conditionWhen(p.condition);
  return `${partFigures(p, horizon)} ${of}`;
}

/** Block ids as a reader counts them, from 1: "1, 3, 5". */
const blockList = (blocks) => blocks.map((b) => String(b + 1)).join(', ');

/** Words for each thing a condition can hold (domain/conditions.rs: Load, Pressure). */
const PRESSURE_WORDS = Object.freeze({
  cpu: 'with the CPU busy with other work',
  io: 'under I/O pressure',
  memory: 'under memory pressure',
});
const OWN_LOAD = "with the CPU busy (this run's own load)";

const isQuiet = (c) => c.load === 'none' && c.pressures.length === 0 && !c.unmeasured;

/** The condition as a phrase that follows "measured": "on a quiet machine", "with the CPU busy with other work", …. */
export function conditionPhrase(c) {
  if (c.unmeasured) return c.load === 'cpu' ? "with the CPU busy (this run's own load; the machine not measured)" : 'on a machine not measured';
  const parts = [...(c.load === 'cpu' ? [OWN_LOAD] : []), ...c.pressures.map((p) => PRESSURE_WORDS[p] ?? p)];
  return parts.length ? parts.join(' and ') : 'on a quiet machine';
}

/** A condition as a comparison's part names it: "when quiet", or its phrase. */
export function conditionWhen(c) {
  return isQuiet(c) ? 'when quiet' : conditionPhrase(c);
}

/** An arm's line in one condition: "Blob when quiet" (export/conditions.rs, arm_in). */
export const armIn = (body, c) => `${body} ${conditionWhen(c)}`;

const pct = (x) => `${fixed(x * 100, 0)}%`;
const known = (x) => x !== null && x !== undefined;

/** What the host saw of the machine, in words: "other work used 0.1 of 2 cores; no I/O or memory pressure". */
export function stateWords(s) {
  if (s.gap === 'not-measured-on-this-os') return 'the machine is not measured on this OS';
  const out = [];
  if (s.all_cores_busy_share >= 0.5) out.push(`${s.cores} of ${s.cores} cores were busy with other work for ${pct(s.all_cores_busy_share)} of the time`);
  else out.push(`other work used ${fixed(s.others_cores, 1)} of ${s.cores} cores`);
  if (s.load_cores > 0.05) out.push(`this run's own load used ${fixed(s.load_cores, 1)}`);
  // Shares below 1% are no pressure; each other one is named.
  const felt = (x) => (known(x) && x >= 0.01 ? x : null);
  const waits = [['I/O', felt(s.io_some)], ['memory', felt(s.memory_some)]].filter(([, x]) => x !== null).map(([on, x]) => `on ${on} ${pct(x)} of the time`);
  if (waits.length) out.push(`some task waited ${waits.join(' and ')}`);
  else if (known(s.io_some) && known(s.memory_some)) out.push('no I/O or memory pressure');
  if (s.gap === 'no-pressure-stall-info') out.push('I/O and memory pressure not measured (no /proc/pressure)');
  if (s.gap === 'browser-unknown') out.push("the browser's processes were not known, so its own CPU counts as other work");
  return out.join('; ');
}

/** "Measured on a quiet machine (other work used 0.0 of 2 cores; no I/O or memory pressure)." */
export function measuredIn(c, s) {
  return `Measured ${conditionPhrase(c)} (${stateWords(s)}).`;
}

/** One part of a run whose condition changed: "block(s) 1, 3 on a quiet machine (…)". */
export function conditionPartText({ condition, blocks, state }) {
  return `block(s) ${blockList(blocks)} ${conditionPhrase(condition)} (${stateWords(state)})`;
}

/** A run whose blocks were measured in more than one condition. */
export function conditionChanged(parts) {
  return `The machine's condition changed during the run: ${parts.map(conditionPartText).join('; ')}. Comparisons are given per condition; one that differs between them reads "depends".`;
}

/** A run whose own load alternated by plan (`--load none,cpu`): the design, not a change. */
export function loadsPlanned(parts) {
  return `Measured with and without this run's own load, in alternate blocks as planned: ${parts.map(conditionPartText).join('; ')}. Comparisons are given per load; one that differs between them reads "depends".`;
}

/** The words of each finding about the machine's condition, by its kind (report/findings.rs). */
const CONDITION_FINDINGS = Object.freeze({
  'measured-in': (f) => measuredIn(f.condition, f.state),
  'other-work': (f) =>
    `${measuredIn(f.condition, f.state)} The verdicts hold for this condition; on a quiet machine they may differ, even in sign (docs/why-the-answer-depends.md).`,
  'condition-changed': (f) => conditionChanged(f.parts),
  'loads-planned': (f) => loadsPlanned(f.parts),
});

/** Whether a warning or note is about the machine's condition (the result's condition line shows it). */
export function isConditionFinding(f) {
  return Object.hasOwn(CONDITION_FINDINGS, f?.kind);
}

/** A finding in words: the condition's made here by the host's rules, any other as the host wrote it. */
export function findingText(f) {
  return CONDITION_FINDINGS[f?.kind]?.(f) ?? f?.message ?? '';
}

/** A comparison's side as a reader is shown it: the arm's label, and the runs when it is another's. */
export function sideLabel(side) {
  return side.of === 'runs' ? `${side.arm.label} in ${side.run_ids.join(',')}` : side.arm.label;
}

/** "Blob h2 vs Blob h1: 1.10x [1.02–1.21] faster". */
export function comparisonLine(c) {
  return `${sideLabel(c.arm)} vs ${sideLabel(c.baseline)}: ${formatComparison(c)}`;
}

/** The positive control's slowdown (detached / attached): "12.5x [11.7–13.4] slower when attached", or a dash. */
export function formatSlowdown(s) {
  if (!s) return '–';
  // The ratio is detached / attached: "faster" means slower attached.
  const words = s.verdict === 'faster' ? 'slower when attached' : s.verdict === 'slower' ? 'faster when attached' : verdictWords(s.verdict, s.horizon);
  return `${formatRatio(s, 1)} ${words}`;
}

/** The chart's legend (report::chart_scale::Legend), or null without one. */
export function legendText(legend) {
  switch (legend?.kind) {
    case 'one-ceiling':
      return `dashed: sink ceiling ${formatMbps(legend.ceiling_mbps)} Mbps`;
    case 'per-transport':
      return "dashed: the sink ceiling of each arm's transport";
    case 'off-scale':
      return `▸ sink ceiling ${legend.ceilings_mbps.map(formatMbps).join(', ')} Mbps, off the scale (${fixed(legend.times_edge, 1)}x the edge)`;
    default:
      return null;
  }
}

/** One word for a table cell, by the integrity's `status`. */
export function integrityWord(integrity) {
  return integrity.status === INTEGRITY.noSamples ? 'no samples' : integrity.status;
}

/** What arrived or what the browser said, when there is more than the word. */
export function integrityDetail(integrity) {
  if (integrity.status === INTEGRITY.corrupted) return `received ${integrity.bytes_received} bytes \`${integrity.head}\``;
  if (typeof integrity.error !== 'string') return null;
  const kind = sampleErrorText(integrity.error, integrity.http_status);
  // The module's own words, when it threw, after what went wrong.
  if (integrity.module_failure) return withOwnWords(moduleFailureText(integrity.module_failure), kind ? null : integrity.error);
  // The browser's own words, or an older sample's sentence, stand as they were.
  return kind ?? integrity.error;
}

const withOwnWords = (what, words) => (words ? `${what} (${words})` : what);

/** Why one sample failed, for the page's log: the browser's words, else its kind's; null when it did not. */
export function sampleFailure(sample) {
  if (!sample.error) return null;
  if (sample.module_failure) return withOwnWords(moduleFailureText(sample.module_failure), sample.rejection);
  return sample.rejection ?? sampleErrorText(sample.error, sample.http_status) ?? sample.error;
}

/** Why an upload failed, by its kind (SAMPLE_ERROR) and the sink's HTTP status; null for a name this build does not know. */
export function sampleErrorText(kind, httpStatus) {
  switch (kind) {
    case SAMPLE_ERROR.fetchRejected: return 'the browser rejected the upload';
    case SAMPLE_ERROR.sinkStatus: return Number.isInteger(httpStatus) ? `the sink answered HTTP ${httpStatus}` : 'the sink answered with an error status';
    case SAMPLE_ERROR.noReply: return "the sink's answer could not be read";
    case SAMPLE_ERROR.differentBytes: return 'the sink received other bytes than were sent';
    case SAMPLE_ERROR.noRecord: return 'the sink has no record of this upload';
    case SAMPLE_ERROR.nothingReceived: return 'the sink reported no received bytes';
    case SAMPLE_ERROR.moduleFailed: return 'the workload module failed';
    default: return null;
  }
}

/** How a workload module failed (`module_failure`: MODULE_FAILURE, with its numbers), as the host words it. */
export function moduleFailureText(failure) {
  switch (failure.kind) {
    case MODULE_FAILURE.notLoaded:
      if (failure.cause === NOT_LOADED.otherContract) return `the module is not of contract ${MODULE_CONTRACT} (export const unobserved = ${MODULE_CONTRACT})`;
      if (failure.cause === NOT_LOADED.noDefaultFunction) return "the module's default export is not a function (export default async function upload(ctx) {…})";
      return 'the module could not be loaded';
    case MODULE_FAILURE.threw: return 'the module threw';
    case MODULE_FAILURE.timedOut: return Number.isFinite(failure.timeout_ms) ? `the module did not settle within ${failure.timeout_ms / 1000} s` : 'the module did not settle in time';
    case MODULE_FAILURE.blocked: return `blocked by the page's Content-Security-Policy (${failure.directive}): ${failure.url}; a module may reach only the run's sink`;
    default: return null;
  }
}

/** Why a run ended, by its typed `end_reason` (END_REASON), as the host words it. */
const END_REASON_TEXT = Object.freeze({
  [END_REASON.sinkUnreachable]: "the sink went away: a sample's record could not be claimed from it",
  [END_REASON.sinkStalled]: "the sink stalled: it did not answer the host's own small upload",
  [END_REASON.pageStalled]: "the page or its browser stalled: the sink answered the host's own small upload at once",
  [END_REASON.pageNotBack]: 'the benchmark page reloaded itself for its next block and no fresh page came back',
  [END_REASON.benchTabClosed]: 'the benchmark tab closed before the run finished',
  [END_REASON.hostGone]: 'the extension lost the native host mid-run',
  [END_REASON.backgroundStopped]: "the extension's background stopped mid-run (the browser ended it or it crashed)",
  [END_REASON.pageFailed]: 'the benchmark page failed',
  [END_REASON.sampleNotStored]: 'the host did not store a sample',
});

/** An end reason in words; null for none, or for a name this build does not know. */
export function endReasonText(reason) {
  return END_REASON_TEXT[reason] ?? null;
}

/** The reasons only the host may give: what the sink did is never the page's to say. */
const HOST_ONLY = new Set([END_REASON.sinkUnreachable, END_REASON.sinkStalled, END_REASON.pageStalled]);

/**
 * Why a run ended, in words (export::words::end_words): the typed reason, with the
 * page's detail where the page's side said it; else the reason as it stands.
 */
export function endWords(why, reason) {
  const text = endReasonText(why);
  if (!text) return reason || null;
  return reason && !HOST_ONLY.has(why) ? `${text}: ${reason}` : text;
}

/** Why an auto-sampled run goes on or stops (domain::plan::AutoReason), in words. */
const AUTO_REASON_WORDS = Object.freeze({
  [AUTO_REASON.settled]: () => 'every comparison is settled',
  [AUTO_REASON.budgetReps]: () => 'the rep budget was spent',
  [AUTO_REASON.budgetTime]: () => 'the time budget was spent',
  [AUTO_REASON.nothingToCompare]: () => 'nothing settled to compare yet',
  [AUTO_REASON.notSettled]: (r) => `not settled: ${r.unsettled.map((a) => a.label).join(', ')}`,
  [AUTO_REASON.checkFailed]: (r) => `auto-check failed: ${r.error}`,
});

/** "every comparison is settled", "not settled: Blob, Uint8Array h2". */
export function autoReasonWords(reason) {
  return AUTO_REASON_WORDS[reason.kind]?.(reason) ?? reason.kind;
}

/** The end reason of an auto-sampled run whose every step ran: "auto: every comparison is settled after 12 samples"; null without one. */
export function autoDoneReason(reason, samples) {
  return reason ? `auto: ${autoReasonWords(reason)} after ${samples} samples` : null;
}
