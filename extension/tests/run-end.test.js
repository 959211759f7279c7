import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endAsRecorded, endAsSaid } from '../lib/run-end.js';
import { POPUP_PHASE, RUN_STATUS } from '../lib/names.js';

test('a run the page calls complete is shown done until the host says otherwise', () => {
  assert.deepEqual(endAsSaid(RUN_STATUS.complete, null), { phase: POPUP_PHASE.done, error: null });
  assert.deepEqual(endAsSaid(RUN_STATUS.incomplete, 'the tab closed'), { phase: POPUP_PHASE.error, error: 'the tab closed' });
  assert.equal(endAsRecorded(RUN_STATUS.complete, { status: RUN_STATUS.complete }), null);
  assert.equal(endAsRecorded(RUN_STATUS.complete, {}), null, 'a second end has no status: nothing changes');
});

test('the host recording a "complete" run as incomplete makes it an error in the popup', () => {
  const shown = endAsRecorded(RUN_STATUS.complete, { status: RUN_STATUS.incomplete });
  assert.equal(shown.phase, POPUP_PHASE.error);
  assert.ok(shown.error);
});
