// The order of uploads in a run. The arms come from the host (its `run-started` reply:
// each arm, typed, with its label), so which arms a plan has and what they are called
// is decided in one place. Here they are only put in order: warm-ups first (not
// counted), then every arm once per rep, interleaved (A B C D, A B C D, ...) so that
// drift over time cannot favour whichever arm happens to run first or last.
//
// A control plan (the positive control) runs every rep twice: once with a debugger
// attached to the benchmark tab and once with nothing attached. Which condition goes
// first alternates from rep to rep, so neither always runs warm or cold.
import { CONDITION } from './names.js';

export function buildSteps(arms, { reps, warmup, control = false }) {
  const steps = [];
  for (let w = 0; w < warmup; w++) steps.push(...repSteps(arms, 'warmup', w, control));
  for (let rep = 0; rep < reps; rep++) steps.push(...repSteps(arms, 'measure', rep, control));
  return steps;
}

/** The measured steps of one more rep: used by --auto, which adds reps one at a time. */
export function stepsForRep(arms, { control = false }, rep) {
  return repSteps(arms, 'measure', rep, control);
}

function repSteps(arms, phase, rep, control) {
  const conditions = !control ? [null] : rep % 2 === 0 ? [CONDITION.attached, CONDITION.detached] : [CONDITION.detached, CONDITION.attached];
  return conditions.flatMap((condition) =>
    arms.map(({ arm, label }) => ({ phase, rep, label, arm: condition ? { ...arm, condition } : arm })),
  );
}
