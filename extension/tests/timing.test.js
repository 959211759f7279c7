import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUnder, spanMarks } from '../lib/timing.js';

const entry = (startTime, requestStart, responseStart, responseEnd) => ({ startTime, requestStart, responseStart, responseEnd });

test("a module's requests are marked from the first one's start to the last reply", () => {
  // Called at 1000 ms: a tus POST, then two PATCHes; an entry from before the call (an
  // earlier upload's) and a mark the browser does not expose (0) are left out.
  const entries = [entry(990, 991, 995, 996), entry(1001, 1002, 1010, 1011), entry(1011, 1012.5, 1060, 1061), entry(1061, 1062, 1099, 0)];
  assert.deepEqual(spanMarks(entries, 1000), { request_start_ms: 2, response_start_ms: 99, response_end_ms: 61 });
  assert.deepEqual(spanMarks([], 1000), { request_start_ms: null, response_start_ms: null, response_end_ms: null });
});

test("only the upload's own routes are watched, not another upload whose id starts the same", () => {
  const route = 'http://127.0.0.1:9/m/t/r/abc';
  assert.ok(isUnder(route, route));
  assert.ok(isUnder(`${route}/1048576`, route));
  assert.ok(isUnder(`${route}?x=1`, route));
  assert.ok(!isUnder(`${route}d`, route));
  assert.ok(!isUnder('http://127.0.0.1:9/m/t/r/ab', route));
});
