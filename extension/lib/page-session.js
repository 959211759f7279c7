// One page session: what the benchmark page says (PAGE, lib/page-protocol.js) carried to
// the host as its messages (HOST_MESSAGE, PROTOCOL.md), and what the page hears back.
// The table below is the only place that says which page message becomes which host
// message. It runs over either transport: the native port (background/run-controller.js)
// or the HTTP of `unobserved serve` (bench/host-channel.js). Both send the same names
// with the same fields, pass on the host's auto progress, and end a run the same way.
import { EXTENSION, PAGE } from './page-protocol.js';
import { AUTO_REASON, END_REASON, HOST_MESSAGE, RUN_STATUS } from './names.js';
import { autoDoneReason, endWords } from './words.js';


/** `{ ok: true }`, or `{ ok: false, error }` when `work` throws. */
async function settle(work) {
  try {
    await work();
    return { ok: true };
  } catch (e) {
    return { ok: false, error: String(e?.message ?? e) };
  }
}

/** The host's auto-decision as the page hears it: go on or not, why (typed), and the progress. */
function autoReply(decision) {
  const { more, reason, settled, comparisons, seconds_left: secondsLeft, settled_verdicts: verdicts } = decision;
  return { more, reason, progress: { settled, comparisons, seconds_left: secondsLeft, settled_verdicts: verdicts ?? [] } };
}

/** Page message -> what the session does: the host message it sends, and the answer. */
const PAGE_TO_HOST = Object.freeze({
  async [PAGE.ready](s, msg, reply) {
    const plan = await s.hooks.plan();
    if (plan) reply({ type: EXTENSION.plan, ...plan });
  },
  async [PAGE.setCondition](s, msg, reply) {
    const answer = await settle(() => s.hooks.setCondition(msg.attached));
    reply({ type: EXTENSION.conditionSet, request_id: msg.request_id, ...answer });
  },
  async [PAGE.progress](s, msg) {
    await s.hooks.progress?.(msg.step);
  },
  async [PAGE.sample](s, msg) {
    const sample = await (s.hooks.sample?.(msg.sample) ?? msg.sample);
    s.samples += 1;
    // One at a time, in order, each stored before the next is sent: a crash loses none
    // already acknowledged.
    s.relayed = s.relayed.then(() => s.transport.send(HOST_MESSAGE.samples, { samples: [sample] }));
    try {
      await s.relayed;
      await s.hooks.stored?.(sample);
    } catch (e) {
      s.end(RUN_STATUS.failed, e.message, e.failure ?? null, END_REASON.sampleNotStored);
    }
  },
  async [PAGE.autoCheck](s, msg, reply) {
    // Every sample so far must be stored before the host judges them.
    await s.relayed.catch(() => {});
    let answer;
    try {
      const decision = await s.transport.send(HOST_MESSAGE.autoCheck, { reps_done: msg.reps_done });
      // Why --auto stopped, as the host typed it, for the run's end record.
      s.autoStop = decision.stop ?? null;
      answer = autoReply(decision);
      await s.hooks.autoProgress?.({ reps_done: msg.reps_done, ...answer.progress });
    } catch (e) {
      answer = { more: false, reason: { kind: AUTO_REASON.checkFailed, error: e.message } };
    }
    reply({ type: EXTENSION.autoDecision, request_id: msg.request_id, ...answer });
  },
  async [PAGE.turn](s, msg, reply) {
    // The previous rep's samples are stored before the next build's rep begins.
    await s.relayed.catch(() => {});
    const answer = await settle(() => s.transport.send(HOST_MESSAGE.turn, {}));
    reply({ type: EXTENSION.turnGiven, request_id: msg.request_id, ...answer });
  },
  async [PAGE.newPage](s, msg, reply) {
    // The old page's samples are stored before a new page takes over.
    await s.relayed.catch(() => {});
    const answer = await settle(() => s.hooks.newPage(msg.rep));
    reply({ type: EXTENSION.newPageGranted, request_id: msg.request_id, ...answer });
  },
  async [PAGE.done](s, msg) {
    await s.end(RUN_STATUS.complete, autoDoneReason(msg.auto_reason, s.samples));
  },
  async [PAGE.failed](s, msg) {
    await s.end(RUN_STATUS.failed, msg.error, null, END_REASON.pageFailed);
  },
});

/**
 * A session over `transport`, whose `send(type, fields)` sends one host message of this
 * run and resolves with the host's reply (rejects with its error). `hooks`:
 *   plan()                 -> the `plan` message's fields, or null (not yet / already sent)
 *   setCondition(attached) -> switches the positive control's debugger, or throws
 *   newPage(rep)           -> a fresh page will take over at `rep`, or throws
 *   progress(step), sample(sample) -> the sample to send, stored(sample),
 *   autoProgress(progress) -> optional, for what shows the run's progress
 *   ending({ status, reason, failure }) -> before the host hears of the end (optional);
 *                          `reason` in words (`endWords`)
 *   observation(status)    -> run-finished's `observation`, or null (optional)
 *   ended({ status, reason, failure, reply, error }) -> the host's answer, or why none
 * `handle(msg, reply)` takes a page message (`reply` answers the page); `end(status,
 * reason, failure, why)` ends the run once, from the page or from the owner (a closed
 * tab, a host gone): `why` is its END_REASON, and `reason` then its detail or null.
 */
export function createPageSession(transport, hooks) {
  const s = { transport, hooks, relayed: Promise.resolve(), samples: 0, autoStop: null, ended: false };
  s.end = async (status, detail, failure = null, why = null) => {
    if (s.ended) return;
    s.ended = true;
    await s.relayed.catch(() => {});
    const reason = endWords(why, detail);
    await hooks.ending?.({ status, reason, failure });
    try {
      const observation = (await hooks.observation?.(status)) ?? null;
      const ended = { status, reason: detail ?? null, end_reason: why, observation, auto_stop: s.autoStop };
      const reply = await transport.send(HOST_MESSAGE.runFinished, ended);
      await hooks.ended({ status, reason, failure, reply, why });
    } catch (error) {
      await hooks.ended({ status, reason, failure, error });
    }
  };
  return {
    async handle(msg, reply) {
      if (s.ended || !Object.hasOwn(PAGE_TO_HOST, msg?.type)) return;
      await PAGE_TO_HOST[msg.type](s, msg, reply);
    },
    end: s.end,
    get ended() {
      return s.ended;
    },
    get samples() {
      return s.samples;
    },
  };
}
