// The order of uploads in a run. Warm-ups first (not counted), then every arm once
// per rep, interleaved (A B C D, A B C D, ...) so that drift over time cannot favour
// whichever arm happens to run first or last.
//
// A control plan (the positive control) runs every rep twice: once with a debugger
// attached to the benchmark tab and once with nothing attached. Which condition goes
// first alternates from rep to rep, so neither always runs warm or cold.
export function buildSteps({ bodies, reps, warmup, control = false }) {
  const steps = [];
  const conditions = (rep) => {
    if (!control) return [null];
    return rep % 2 === 0 ? ['attached', 'detached'] : ['detached', 'attached'];
  };
  for (let w = 0; w < warmup; w++) {
    for (const condition of conditions(w)) {
      for (const body of bodies) steps.push(step('warmup', w, body, condition));
    }
  }
  for (let rep = 0; rep < reps; rep++) {
    for (const condition of conditions(rep)) {
      for (const body of bodies) steps.push(step('measure', rep, body, condition));
    }
  }
  return steps;
}

function step(phase, rep, body, condition) {
  return condition ? { phase, rep, body, condition } : { phase, rep, body };
}

/** The measured steps of one rep: used by --auto, which adds reps one at a time. */
export function stepsForRep(plan, rep) {
  return buildSteps({ ...plan, reps: rep + 1, warmup: 0 }).filter((s) => s.rep === rep);
}

export function measuredCount(plan) {
  return plan.reps * plan.bodies.length * (plan.control ? 2 : 1);
}
