import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endAsRecorded, endAsSaid } from '../lib/run-end.js';
import { END_REASON, POPUP_PHASE, RUN_STATUS } from '../lib/names.js';
import { endReasonText } from '../lib/words.js';

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

test("a run the host recorded failed for a typed reason says that reason, not a count", () => {
  const shown = endAsRecorded(RUN_STATUS.complete, { status: RUN_STATUS.failed, end_reason: END_REASON.sinkUnreachable });
  assert.equal(shown.phase, POPUP_PHASE.error);
  assert.ok(shown.error.includes(endReasonText(END_REASON.sinkUnreachable)), shown.error);
});

test("the host's reason is shown when it differs from the page's, even where the status is the same", () => {
  const reply = { status: RUN_STATUS.failed, end_reason: END_REASON.sinkUnreachable };
  const shown = endAsRecorded(RUN_STATUS.failed, reply, END_REASON.pageFailed);
  assert.ok(shown.error.includes(endReasonText(END_REASON.sinkUnreachable)), shown?.error);
  // The page's own reason, recorded as it gave it: nothing to add.
  assert.equal(endAsRecorded(RUN_STATUS.failed, { status: RUN_STATUS.failed, end_reason: END_REASON.pageFailed }, END_REASON.pageFailed), null);
});
