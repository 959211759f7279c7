import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { quantile, median } from '../lib/stats.js';

// The same cases drive the host's `stats::quantile` test.
const cases = JSON.parse(readFileSync(new URL('../../tests/fixtures/quantiles.json', import.meta.url), 'utf8'));

test('quantiles interpolate like the host (R-7), from the shared fixture', () => {
  for (const c of cases) {
    const got = quantile([...c.data].sort((a, b) => a - b), c.q);
    assert.equal(got === null ? null : Math.round(got * 1e9) / 1e9, c.expect, JSON.stringify(c));
  }
});

test('median sorts its input', () => {
  assert.equal(median([9, 1, 5]), 5);
});
