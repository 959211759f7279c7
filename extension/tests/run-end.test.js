import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RUN_STATUS, endAsRecorded, endAsSaid } from '../lib/run-end.js';

test('a run the page calls complete is shown done until the host says otherwise', () => {
  assert.deepEqual(endAsSaid(RUN_STATUS.COMPLETE, null), { phase: 'done', error: null });
  assert.deepEqual(endAsSaid(RUN_STATUS.INCOMPLETE, 'the tab closed'), { phase: 'error', error: 'the tab closed' });
  assert.equal(endAsRecorded(RUN_STATUS.COMPLETE, { status: RUN_STATUS.COMPLETE }), null);
  assert.equal(endAsRecorded(RUN_STATUS.COMPLETE, {}), null, 'a second end has no status: nothing changes');
});

test('the host recording a "complete" run as incomplete makes it an error in the popup', () => {
  const shown = endAsRecorded(RUN_STATUS.COMPLETE, { status: RUN_STATUS.INCOMPLETE });
  assert.equal(shown.phase, 'error');
  assert.ok(shown.error);
});
