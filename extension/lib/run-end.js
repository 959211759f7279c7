// How a run ended, as the popup shows it. The host's record decides: a run the page
// called complete is shown as the host recorded it (incomplete when the store holds
// fewer samples than the plan needs, PROTOCOL.md `run-finished`).
import { POPUP_PHASE, RUN_STATUS } from './names.js';
import { endReasonText } from './words.js';
import { NOTE, noteText } from './format.js';

/** The popup's phase before the host answers: the page's own word. */
export function endAsSaid(status, reason) {
  return status === RUN_STATUS.complete ? { phase: POPUP_PHASE.done, error: null } : { phase: POPUP_PHASE.error, error: reason };
}

/**
 * The popup's phase once the host has answered, or null when it agrees: with the status
 * the page gave (`status`) and the reason it named (`why`, an END_REASON or null).
 */
export function endAsRecorded(status, reply, why = null) {
  const recorded = reply?.status;
  const otherReason = Boolean(reply?.end_reason) && reply.end_reason !== why;
  if (!recorded || (recorded === status && !otherReason)) return null;
  if (recorded === RUN_STATUS.complete) return { phase: POPUP_PHASE.done, error: null };
  // The host's typed reason, where it has one (a remote sink that went away).
  const said = endReasonText(reply.end_reason);
  if (said) return { phase: POPUP_PHASE.error, error: noteText(NOTE.recordedAs, { recorded, why: said }) };
  return {
    phase: POPUP_PHASE.error,
    error: noteText(NOTE.recordedShort, { recorded }),
  };
}
