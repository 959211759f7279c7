// The extension's names against the host's: tests/fixtures/names.json is written from
// the host's enums (host/src/protocol/names.rs), so a name renamed on one side only
// fails here or there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as names from '../lib/names.js';

const FIXTURE = JSON.parse(readFileSync(new URL('../../tests/fixtures/names.json', import.meta.url), 'utf8'));

/** Each constants group and the fixture's list it must hold exactly. */
const GROUPS = [
  ['HOST_MESSAGE', 'host_messages'],
  ['HOST_REPLY', 'host_replies'],
  ['SERVE_MESSAGE', 'serve_messages'],
  ['SAMPLE_STATUS', 'sample_statuses'],
  ['SAMPLE_ERROR', 'sample_errors'],
  ['RUN_STATUS', 'run_statuses'],
  ['CONDITION', 'conditions'],
  ['AUTO_STOP', 'auto_stops'],
  ['END_REASON', 'end_reasons'],
  ['INTEGRITY', 'integrity_statuses'],
  ['AUTO_REASON', 'auto_reasons'],
];

const camel = (name) => name.replace(/-(.)/g, (_, c) => c.toUpperCase());

for (const [constants, key] of GROUPS) {
  test(`${constants} holds the host's ${key}, each under its own name`, () => {
    const group = names[constants];
    assert.deepEqual(Object.values(group).sort(), [...FIXTURE[key]].sort());
    for (const [k, v] of Object.entries(group)) assert.equal(k, camel(v));
  });
}

test("HOST_ERROR names every numbered host error", () => {
  assert.deepEqual(Object.values(names.HOST_ERROR).sort(), Object.keys(FIXTURE.host_errors).sort());
  for (const [k, v] of Object.entries(names.HOST_ERROR)) assert.equal(k, camel(v));
});
