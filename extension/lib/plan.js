// The order of uploads in a run. Warm-ups first (not counted), then every arm once
// per rep, interleaved (A B C D, A B C D, ...) so that drift over time cannot favour
// whichever arm happens to run first or last.
export function buildSteps({ bodies, reps, warmup }) {
  const steps = [];
  for (let w = 0; w < warmup; w++) {
    for (const body of bodies) steps.push({ phase: 'warmup', rep: w, body });
  }
  for (let rep = 0; rep < reps; rep++) {
    for (const body of bodies) steps.push({ phase: 'measure', rep, body });
  }
  return steps;
}

export function measuredCount(plan) {
  return plan.reps * plan.bodies.length;
}
