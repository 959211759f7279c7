// A run's id, by the host's rule (host/src/domain/run.rs, run_id_at): the UTC second the run
// started and 16 random bits in 4 hex digits, "20261201-143042-ad76".
// tests/fixtures/run-ids.json holds both to the same cases.

/** The id of a run started at `at` (a Date) with the random number `random` (0–65535). */
export function runIdAt(at, random) {
  const second = at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${second}-${random.toString(16).padStart(4, '0')}`;
}

export function newRunId() {
  return runIdAt(new Date(), crypto.getRandomValues(new Uint16Array(1))[0]);
}
