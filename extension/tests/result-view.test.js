// What the popup and the page of `unobserved serve` list under a result (lib/result-view.js),
// against tests/fixtures/formats.json, which the host's export/words.rs writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { findingItems } from '../lib/result-view.js';

const FIXTURE = JSON.parse(readFileSync(new URL('../../tests/fixtures/formats.json', import.meta.url), 'utf8'));

test('a workload module that changed since it was registered is listed as a warning, in the host\'s words', () => {
  const { finding, text } = FIXTURE.module_changed;
  assert.equal(finding.kind, 'module-changed');
  assert.ok(finding.sha256 !== finding.registered_sha256);
  const items = findingItems({ arms: [], warnings: [finding], notes: [] });
  assert.deepEqual(items, [['Warning', text, 'warning']]);
});
