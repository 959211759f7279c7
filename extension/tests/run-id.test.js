import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { newRunId, runIdAt } from '../lib/run-id.js';

// The host makes and checks run ids from the same cases (host/src/domain/run.rs).
const FIXTURE = JSON.parse(readFileSync(new URL('../../tests/fixtures/run-ids.json', import.meta.url), 'utf8'));

test("a run id is made by the host's rule", () => {
  for (const { at, random, id } of FIXTURE.made) assert.equal(runIdAt(new Date(at), random), id, at);
  assert.match(newRunId(), /^\d{8}-\d{6}-[0-9a-f]{4}$/);
});
