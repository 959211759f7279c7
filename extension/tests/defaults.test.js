import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AFTER_RUN, AUTO_DEFAULT, DEFAULT_OPTIONS, LOADS, OPTION_PROBLEM, PLAN_PROBLEM, planFromOptions, tickedModules, validateOptions, BODY_KINDS, LIMITS, MIB, TRANSPORTS } from '../lib/defaults.js';
import { problemText } from '../lib/format.js';
import { PLAN_LIMITS } from '../lib/plan-limits.js';

// Written by the host's core with the module above (host/src/domain/plan/validate.rs).
const fixture = JSON.parse(readFileSync(new URL('../../tests/fixtures/plan-limits.json', import.meta.url), 'utf8'));
// Remote sink URLs as the host reads them (host/src/domain/sink_url.rs).
const SINK_URLS = JSON.parse(readFileSync(new URL('../../tests/fixtures/sink-urls.json', import.meta.url), 'utf8'));

test('the body kinds, transports and limits are the host core\'s', () => {
  assert.deepEqual(PLAN_LIMITS, fixture);
  assert.deepEqual(BODY_KINDS, fixture.body_kinds);
  assert.deepEqual(LIMITS, fixture.limits);
  assert.deepEqual(Object.keys(TRANSPORTS), fixture.transports);
});

test('the options page refuses what the host refuses, and takes every limit itself', () => {
  const at = (o) => validateOptions({ ...DEFAULT_OPTIONS, ...o });
  const { reps, warmup, size_bytes: size } = LIMITS;
  for (const edge of [{ reps: reps.min }, { reps: reps.max }, { warmup: warmup.min }, { warmup: warmup.max },
    { sizeMiB: size.min / MIB }, { sizeMiB: size.max / MIB }]) {
    assert.deepEqual(at(edge), [], JSON.stringify(edge));
  }
  const kinds = (o) => at(o).map((p) => p.kind);
  for (const [over, kind] of [[{ reps: reps.max + 1 }, PLAN_PROBLEM.repsOutOfRange], [{ reps: reps.min - 1 }, PLAN_PROBLEM.repsOutOfRange],
    [{ warmup: warmup.max + 1 }, PLAN_PROBLEM.warmupOutOfRange], [{ sizeMiB: size.max / MIB + 1 }, PLAN_PROBLEM.sizeTooLarge],
    [{ sizeMiB: size.min / MIB / 2 }, PLAN_PROBLEM.sizeTooSmall]]) {
    assert.deepEqual(kinds(over), [kind], JSON.stringify(over));
  }
});

test('the default suite is 32 MiB of all four kinds, 6 reps and then auto-sampled for up to a minute', () => {
  const auto = { max_reps: 1000, max_seconds: 60 };
  assert.deepEqual(planFromOptions({}), { size_bytes: 32 * 1024 * 1024, reps: 6, warmup: 1, bodies: BODY_KINDS, transports: ['h1'], auto });
  assert.deepEqual(AUTO_DEFAULT, auto, "the host's default budget");
  assert.equal(planFromOptions({ auto: false }).auto, undefined, 'auto off: exactly `reps` reps');
  assert.deepEqual(planFromOptions({ maxSeconds: 20 }).auto, { max_reps: 1000, max_seconds: 20 });
  assert.deepEqual(BODY_KINDS, ['Uint8Array', 'ArrayBuffer', 'Blob', 'ReadableStream']);
});

test("the load tick box sends every load the host has, in --load none,cpu's order; unticked, none; anything else is refused", () => {
  assert.ok(Array.isArray(fixture.loads) && fixture.loads.length > 1, 'the host names its loads');
  assert.deepEqual(LOADS, fixture.loads);
  assert.deepEqual(planFromOptions({ load: true }).loads, fixture.loads);
  assert.equal(DEFAULT_OPTIONS.load, false, 'off unless ticked');
  assert.equal(Object.hasOwn(planFromOptions({}), 'loads'), false);
  assert.equal(Object.hasOwn(planFromOptions({ load: 'true' }), 'loads'), false);
  assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, load: true }), []);
  assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, load: 'yes' }).map((p) => p.kind), [OPTION_PROBLEM.load]);
});

test("the plan's rules the options page names are the host's own kinds", () => {
  for (const kind of Object.values(PLAN_PROBLEM)) assert.ok(fixture.plan_error_kinds.includes(kind), kind);
  for (const kind of Object.values(OPTION_PROBLEM)) assert.ok(!fixture.plan_error_kinds.includes(kind), `${kind} is the plan's, not the options'`);
});

test('bad options are refused with a kind each, and each kind has its own words', () => {
  assert.deepEqual(validateOptions(DEFAULT_OPTIONS), []);
  const errors = validateOptions({ sizeMiB: 0, reps: 1.5, warmup: -1, bodies: [], sinkUrl: 'ftp://x' });
  assert.deepEqual(errors.map((e) => e.kind), [PLAN_PROBLEM.sizeTooSmall, PLAN_PROBLEM.repsOutOfRange, PLAN_PROBLEM.warmupOutOfRange, PLAN_PROBLEM.noArms, OPTION_PROBLEM.sinkUrl]);
  const every = [...Object.values(PLAN_PROBLEM), ...Object.values(OPTION_PROBLEM)].map((kind) => problemText({ kind, limit: LIMITS.reps }));
  assert.equal(new Set(every).size, every.length - 1, 'the two size kinds share their words; no other two do');
  assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, sinkUrl: 'http://10.0.0.2:8080/upload/abc123' }), []);
  assert.equal(validateOptions({ ...DEFAULT_OPTIONS, afterRun: 'vanish' }).length, 1);
  const seconds = LIMITS.auto_max_seconds;
  for (const maxSeconds of [seconds.min - 1, seconds.max + 1, 2.5]) assert.equal(validateOptions({ ...DEFAULT_OPTIONS, maxSeconds }).length, 1, `${maxSeconds} s`);
  assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, auto: false, maxSeconds: 0 }), [], 'no budget to check without auto');
  for (const afterRun of Object.keys(AFTER_RUN)) assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, afterRun }), []);
});

test('transports: at least one, and TLS ones only with the local sink', () => {
  assert.deepEqual(planFromOptions({ transports: ['h1', 'h2', 'h9'] }).transports, ['h1', 'h2']);
  assert.equal(validateOptions({ ...DEFAULT_OPTIONS, transports: [] }).length, 1);
  assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, transports: ['h1', 'h1-tls', 'h2'] }), []);
  assert.equal(validateOptions({ ...DEFAULT_OPTIONS, transports: ['h2'], sinkUrl: 'http://10.0.0.2:8080/upload/abc123' }).length, 1);
  // An https:// sink (pinned TLS) is measured over h2, and only over h2.
  const pinned = SINK_URLS.sinks.find((s) => s.transport === 'h2').url;
  assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, transports: ['h1'], sinkUrl: pinned }), [{ kind: OPTION_PROBLEM.remoteSinkTransport, transport: 'h2' }]);
  assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, transports: ['h2'], sinkUrl: pinned }), []);
});

test('in Firefox, a plain sink off loopback is refused, typed; loopback and https are not', () => {
  const kinds = (sinkUrl, transport, gecko) => validateOptions({ ...DEFAULT_OPTIONS, sinkUrl, transports: [transport] }, { gecko }).map((p) => p.kind);
  for (const { url, transport, gecko_upgrades_to_https: upgraded } of SINK_URLS.sinks) {
    assert.deepEqual(kinds(url, transport, true), upgraded ? [OPTION_PROBLEM.plainSinkUpgraded] : [], url);
    assert.deepEqual(kinds(url, transport, false), [], `${url}: other browsers take it`);
  }
});

test('ticked workload modules are arms of the plan, by name, and only while registered', () => {
  const registered = [{ name: 'mine', sha256: 'a'.repeat(64), bytes: 10 }];
  assert.deepEqual(tickedModules(['mine', 'gone'], registered), ['mine'], 'a removed module is not asked for');
  assert.deepEqual(tickedModules(undefined, registered), []);
  assert.deepEqual(planFromOptions({ modules: ['mine'] }).modules, [{ name: 'mine' }]);
  assert.equal(planFromOptions({}).modules, undefined, 'no modules ticked: the plan has none');
  assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, bodies: [], modules: ['mine'] }), [], 'a module alone is an arm');
  assert.deepEqual(validateOptions({ ...DEFAULT_OPTIONS, bodies: [], modules: [] }).map((e) => e.kind), [PLAN_PROBLEM.noArms]);
});
