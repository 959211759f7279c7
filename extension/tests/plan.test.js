import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildSteps, stepsForRep } from '../lib/plan.js';

// The arms exactly as the host hands them over (host/src/domain/plan.rs checks this file).
const fixture = JSON.parse(readFileSync(new URL('../../tests/fixtures/plan-counts.json', import.meta.url), 'utf8'));
const body = (name) => ({ arm: { kind: 'body', body: name }, label: name });
const ABCD = ['A', 'B', 'C', 'D'].map(body);

test('warm-ups come first and are not measured', () => {
  const steps = buildSteps(ABCD.slice(0, 2), { reps: 1, warmup: 2 });
  assert.deepEqual(steps.slice(0, 4).map((s) => s.phase), ['warmup', 'warmup', 'warmup', 'warmup']);
  assert.equal(steps.filter((s) => s.phase === 'measure').length, 2);
});

test('arms are interleaved rep by rep: A B C D, A B C D', () => {
  const steps = buildSteps(ABCD, { reps: 2, warmup: 0 });
  assert.deepEqual(steps.map((s) => `${s.label}${s.rep}`), ['A0', 'B0', 'C0', 'D0', 'A1', 'B1', 'C1', 'D1']);
});

test('a control plan runs each rep attached and detached, alternating which goes first', () => {
  const steps = buildSteps(ABCD.slice(0, 2), { reps: 2, warmup: 0, control: true });
  assert.deepEqual(steps.map((s) => `${s.arm.condition[0]}${s.arm.body}${s.rep}`), [
    'aA0', 'aB0', 'dA0', 'dB0',
    'dA1', 'dB1', 'aA1', 'aB1',
  ]);
});

test('--auto adds reps one at a time, in the same interleaved order', () => {
  const plan = { reps: 2, warmup: 1, control: true };
  const arms = ABCD.slice(0, 2);
  assert.deepEqual(stepsForRep(arms, plan, 3), buildSteps(arms, { ...plan, reps: 4, warmup: 0 }).slice(12));
  assert.ok(stepsForRep(arms, plan, 3).every((s) => s.rep === 3 && s.phase === 'measure'));
});

test('ordinary plans carry no condition, and the arm is passed on as the host gave it', () => {
  const steps = buildSteps([body('A')], { reps: 1, warmup: 1 });
  assert.ok(steps.every((s) => !('condition' in s.arm)));
  assert.deepEqual(steps[0].arm, { kind: 'body', body: 'A' });
});

test("every plan of the shared fixture: each of the host's arms once per rep and condition", () => {
  for (const { plan, arms } of fixture.plans) {
    const steps = buildSteps(arms, plan).filter((s) => s.phase === 'measure');
    assert.equal(steps.length, plan.reps * arms.length * (plan.control ? 2 : 1), JSON.stringify(plan));
    assert.deepEqual(steps.slice(0, arms.length).map((s) => s.label), arms.map((a) => a.label));
  }
});

test('transports and the negative control are arms like any other', () => {
  const { plan, arms } = fixture.plans.find((c) => c.plan.transports);
  const steps = buildSteps(arms, { ...plan, warmup: 0 });
  assert.deepEqual(steps.slice(0, arms.length).map((s) => [s.arm.transport, s.arm.repeat ?? false]), [
    ['h1', false], ['h1', false], ['h1', true], ['h2', false], ['h2', false],
  ]);
});
