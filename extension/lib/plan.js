// The order of uploads in a run. Warm-ups first (not counted), then every arm once
// per rep, interleaved (A B C D, A B C D, ...) so that drift over time cannot favour
// whichever arm happens to run first or last.
//
// A control plan (the positive control) runs every rep twice: once with a debugger
// attached to the benchmark tab and once with nothing attached. Which condition goes
// first alternates from rep to rep, so neither always runs warm or cold.
export function buildSteps(plan) {
  const { reps, warmup, control = false } = plan;
  const arms = armsOf(plan);
  const steps = [];
  const conditions = (rep) => {
    if (!control) return [null];
    return rep % 2 === 0 ? ['attached', 'detached'] : ['detached', 'attached'];
  };
  for (let w = 0; w < warmup; w++) {
    for (const condition of conditions(w)) {
      for (const arm of arms) steps.push(step('warmup', w, arm, condition));
    }
  }
  for (let rep = 0; rep < reps; rep++) {
    for (const condition of conditions(rep)) {
      for (const arm of arms) steps.push(step('measure', rep, arm, condition));
    }
  }
  return steps;
}

function step(phase, rep, arm, condition) {
  const s = { phase, rep, body: arm.body };
  if (arm.workload) s.workload = arm.workload;
  if (arm.negativeControl) s.negative_control = true;
  if (condition) s.condition = condition;
  return s;
}

const MIB = 1024 * 1024;
const sizeLabel = (bytes) => (bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} B`);

/**
 * Every arm of a plan: the body kinds, the negative control, then the workloads. The
 * host counts the same arms (host/src/model.rs, Plan::measured_uploads).
 */
export function armsOf({ bodies = [], workloads = {}, negative_control: negativeControl = false }) {
  const arms = bodies.map((body) => ({ body }));
  // The negative control: the baseline body again, under its own label, compared with
  // itself by the host (host/src/report, NEGATIVE_CONTROL_SUFFIX).
  if (negativeControl && bodies.length) {
    arms.push({ body: bodies.includes('Uint8Array') ? 'Uint8Array' : bodies[0], negativeControl: true });
  }
  for (const chunkBytes of workloads.encrypted?.chunk_sizes ?? []) {
    for (const schedule of ['serial', 'pipelined']) {
      arms.push({
        body: `AES-GCM ${sizeLabel(chunkBytes)} ${schedule}`,
        workload: { kind: 'encrypted', fileBytes: workloads.encrypted.file_bytes, chunkBytes, schedule },
      });
    }
  }
  if (workloads.download) arms.push({ body: 'download', workload: { kind: 'download', bytes: workloads.download.bytes } });
  for (const streams of workloads.parallel?.streams ?? []) {
    arms.push({ body: `parallel x${streams}`, workload: { kind: 'parallel', bytes: workloads.parallel.bytes, streams } });
  }
  return arms;
}

/** The measured steps of one rep: used by --auto, which adds reps one at a time. */
export function stepsForRep(plan, rep) {
  return buildSteps({ ...plan, reps: rep + 1, warmup: 0 }).filter((s) => s.rep === rep);
}

export function measuredCount(plan) {
  const reps = plan.auto ? Math.max(plan.auto.max_reps, plan.reps) : plan.reps;
  return reps * armsOf(plan).length * (plan.control ? 2 : 1);
}
