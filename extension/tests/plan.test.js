import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSteps, measuredCount, stepsForRep, armsOf } from '../lib/plan.js';

test('warm-ups come first and are not measured', () => {
  const steps = buildSteps({ bodies: ['A', 'B'], reps: 1, warmup: 2 });
  assert.deepEqual(steps.slice(0, 4).map((s) => s.phase), ['warmup', 'warmup', 'warmup', 'warmup']);
  assert.equal(steps.filter((s) => s.phase === 'measure').length, 2);
});

test('arms are interleaved rep by rep: A B C D, A B C D', () => {
  const steps = buildSteps({ bodies: ['A', 'B', 'C', 'D'], reps: 2, warmup: 0 });
  assert.deepEqual(steps.map((s) => `${s.body}${s.rep}`), ['A0', 'B0', 'C0', 'D0', 'A1', 'B1', 'C1', 'D1']);
});

test('measured count is reps times arms', () => {
  assert.equal(measuredCount({ bodies: ['A', 'B', 'C'], reps: 6 }), 18);
  assert.equal(measuredCount({ bodies: ['A', 'B', 'C'], reps: 6, control: true }), 36);
});

test('a control plan runs each rep attached and detached, alternating which goes first', () => {
  const steps = buildSteps({ bodies: ['A', 'B'], reps: 2, warmup: 0, control: true });
  assert.deepEqual(steps.map((s) => `${s.condition[0]}${s.body}${s.rep}`), [
    'aA0', 'aB0', 'dA0', 'dB0',
    'dA1', 'dB1', 'aA1', 'aB1',
  ]);
});

test('--auto adds reps one at a time, in the same interleaved order', () => {
  const plan = { bodies: ['A', 'B'], reps: 2, warmup: 1, control: true };
  assert.deepEqual(stepsForRep(plan, 3), buildSteps({ ...plan, reps: 4, warmup: 0 }).slice(12));
  assert.ok(stepsForRep(plan, 3).every((s) => s.rep === 3 && s.phase === 'measure'));
});

test('workloads become arms: two schedules per chunk size, a download, one per stream count', () => {
  const MiB = 1024 * 1024;
  const plan = { bodies: ['Blob'], reps: 2, warmup: 0, workloads: {
    encrypted: { file_bytes: 64 * MiB, chunk_sizes: [16 * MiB, 32 * MiB] },
    download: { bytes: 8 * MiB },
    parallel: { bytes: MiB, streams: [1, 4] },
  } };
  assert.deepEqual(armsOf(plan).map((a) => a.body), [
    'Blob', 'AES-GCM 16 MiB serial', 'AES-GCM 16 MiB pipelined', 'AES-GCM 32 MiB serial', 'AES-GCM 32 MiB pipelined',
    'download', 'parallel x1', 'parallel x4',
  ]);
  assert.deepEqual(armsOf(plan)[2].workload, { kind: 'encrypted', fileBytes: 64 * MiB, chunkBytes: 16 * MiB, schedule: 'pipelined' });
  assert.equal(measuredCount(plan), 16);
  assert.equal(buildSteps(plan)[8].body, 'Blob', 'interleaved rep by rep like body kinds');
});

test('ordinary plans carry no condition', () => {
  assert.ok(buildSteps({ bodies: ['A'], reps: 1, warmup: 1 }).every((s) => !('condition' in s)));
});

test('the measured count agrees with the host on the shared fixture', async () => {
  const { readFileSync } = await import('node:fs');
  const fixture = JSON.parse(readFileSync(new URL('../../tests/fixtures/plan-counts.json', import.meta.url), 'utf8'));
  for (const { plan, measured } of fixture.plans) assert.equal(measuredCount(plan), measured, JSON.stringify(plan));
});

test('the negative control uploads the baseline body again in every rep, marked', () => {
  const steps = buildSteps({ bodies: ['Blob', 'Uint8Array'], reps: 2, warmup: 0, negative_control: true });
  assert.deepEqual(steps.map((s) => `${s.body}${s.negative_control ? '*' : ''}${s.rep}`), [
    'Blob0', 'Uint8Array0', 'Uint8Array*0',
    'Blob1', 'Uint8Array1', 'Uint8Array*1',
  ]);
});
