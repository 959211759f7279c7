// One run at a time: connect to the host, open the benchmark page at the sink, hand it
// the plan, relay every sample to the host as it completes, and close up.
import { api } from '../lib/api.js';
import { connectHost } from './native-port.js';
import { getRunState, setRunState, patchRunState } from './run-state.js';
import { describeBrowser } from '../lib/environment.js';
import { toHex } from '../lib/bodies.js';
import * as control from './debugger-control.js';
import { SUMMARY_PAGE } from '../lib/defaults.js';
import { PLAN_LIMITS } from '../lib/plan-limits.js';
import { createPageSession } from '../lib/page-session.js';
import { CONDITION, END_REASON, HOST_MESSAGE, POPUP_PHASE, RUN_STATUS } from '../lib/names.js';
import { PAGE } from '../lib/page-protocol.js';
import { endAsRecorded, endAsSaid } from '../lib/run-end.js';
import { newRunId } from '../lib/run-id.js';
import { NOTE, noteText } from '../lib/format.js';
import { endWords } from '../lib/words.js';

let active = null;

export function isRunning() {
  return active !== null;
}

/**
 * Starts a run. `connection` is an already greeted host (the job path); otherwise one
 * is opened here (the popup path). Both paths then share everything below.
 */
/** The run as `run-started` tells the host of it. */
function runInfo({ runId, sinkUrl, env, extensionVersion, plan, source }) {
  return {
    run_id: runId ?? newRunId(),
    // A remote sink is measured as a link, not against the local sink's ceiling.
    sink: sinkUrl ? 'remote' : 'local',
    // The host claims what that sink received from it (never stored: it holds the token).
    ...(sinkUrl ? { sink_url: sinkUrl } : {}),
    ...env,
    extension_version: extensionVersion,
    plan,
    source,
    started_at: new Date().toISOString(),
  };
}

/**
 * Encrypted workloads: a fresh key per run, handed to the host over native messaging
 * (never HTTP) so the sink can decrypt and verify every chunk. A plan with workload
 * modules has the run's key too, for a module that encrypts. The key in hex, or null.
 */
async function handOverKey(host, plan, runId) {
  if (!plan.workloads?.encrypted && !plan.modules?.length) return null;
  const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt']);
  const hex = toHex(await crypto.subtle.exportKey('raw', key));
  await host.request({ type: HOST_MESSAGE.workloadKey, run_id: runId, key: hex });
  return hex;
}

export async function startRun({ plan, source, runId, afterRun = 'close', sinkUrl = '', connection = null, env: known = null }) {
  if (active) throw new Error(noteText(NOTE.runInProgress));
  // Claimed before the first await, so a concurrent check sees a run starting.
  active = { pendingStart: true };
  const env = known ?? (await describeBrowser(api));
  const extensionVersion = api.runtime.getManifest().version;
  try {
    const [host, hello] = connection ?? (await connectHost(extensionVersion, env.browser));
    const run = runInfo({ runId, sinkUrl, env, extensionVersion, plan, source });
    const started = await host.request({ type: HOST_MESSAGE.runStarted, run });
    if (sinkUrl && plan.workloads?.encrypted) {
      throw new Error(noteText(NOTE.encryptedNeedsLocalSink));
    }
    const workloadKey = await handOverKey(host, plan, run.run_id);
    // Where each transport's uploads go: the TLS listeners the host started for this
    // run and h1's local sink, or the remote sink under its URL's transport, without
    // the pin its URL carries (the host checked that one).
    const uploadUrls = sinkUrl ? started.upload_urls : { ...started.upload_urls, h1: hello.sink.upload_url };
    const plannedArms = started.arms;
    const total = started.measured_uploads;
    // The reps before any budget may stop it: a plan of loads takes a whole block of each.
    const minimumReps = started.minimum_reps ?? plan.reps;
    const takeTurns = started.take_turns === true;
    active = { host, run, uploadUrls, arms: plannedArms, total, minimumReps, takeTurns, afterRun, cameFrom: null, workloadKey, moduleSeed: started.module_seed ?? null, tabId: null, samples: [], finished: false, stateWrites: Promise.resolve(), pageLoads: 0, port: null, resumeAt: null, lastResume: null, pageTimer: null, condition: null };
    const session = pageSession(active);
    active.session = session;
    host.onClose = (why, failure) => session.end(RUN_STATUS.incomplete, why, failure, END_REASON.hostGone);
    await setRunState({
      phase: POPUP_PHASE.running,
      run_id: run.run_id,
      browser: env.browser,
      done: 0,
      total,
      minimum_reps: minimumReps,
      step: null,
      samples: [],
      plan,
      started_at: run.started_at,
    });
    // The local sink serves the page, so uploads run in an ordinary web page. A remote
    // sink is reached from the extension's own page (secure context, host permission).
    const pageUrl = sinkUrl ? api.runtime.getURL(`bench/index.html#${run.run_id}`) : `${hello.sink.page_url}#${run.run_id}`;
    if (afterRun === 'return') [active.cameFrom] = await api.tabs.query({ active: true, currentWindow: true });
    const tab = await api.tabs.create({ url: pageUrl, active: source === 'popup' });
    active.tabId = tab.id;
    return run.run_id;
  } catch (e) {
    active = null;
    await setRunState({ phase: POPUP_PHASE.error, error: String(e?.message ?? e), failure: e?.failure ?? null, browser: env.browser });
    throw e;
  }
}

/** How long a page that asked for a fresh page may take to come back (ms): as long as `serve` waits. */
const PAGE_RETURN_MS = PLAN_LIMITS.page_return_ms;

/** A page's sample, stamped with the page it came from (the port it arrived over). */
function fromPage(msg, load) {
  return msg?.type === PAGE.sample && msg.sample ? { ...msg, sample: { ...msg.sample, page_load: load } } : msg;
}

/**
 * The relay in the benchmark tab connected: the run's first page, or a fresh one that
 * takes over the next block (each page connects its own port; its number is stamped on
 * its samples). Only the tab we opened is listened to.
 */
export function attachBenchPort(port) {
  if (!active || active.pendingStart || port.sender?.tab?.id !== active.tabId) {
    port.disconnect();
    return;
  }
  const run = active;
  const load = run.pageLoads++;
  run.port = port;
  run.resumeAt = null;
  clearTimeout(run.pageTimer);
  port.onMessage.addListener((msg) => run.session.handle(fromPage(msg, load), (m) => port.postMessage(m)));
  port.onDisconnect.addListener(() => {
    if (run.port !== port) return;
    if (run.resumeAt === null) {
      run.session.end(RUN_STATUS.incomplete, null, null, END_REASON.benchTabClosed);
      return;
    }
    run.pageTimer = setTimeout(() => run.session.end(RUN_STATUS.incomplete, null, null, END_REASON.pageNotBack), PAGE_RETURN_MS);
  });
}

/**
 * Progress writes of one run, one after another. A write queued after the run finished
 * is dropped, so it can never put "running" back over the final state.
 */
function progress(run, patch) {
  run.stateWrites = run.stateWrites.then(() => (run.finished ? null : patchRunState(patch))).catch(() => {});
  return run.stateWrites;
}

/** The native port as the page session's transport: every message names the run. */
function nativeTransport(run) {
  return {
    async send(type, fields) {
      if (type === HOST_MESSAGE.runFinished && run.host.closed) {
        // The host died mid-run: start a fresh one just to record how the run ended.
        // Samples it acknowledged before dying are already on disk.
        [run.host] = await connectHost(run.run.extension_version, run.run.browser);
      }
      return run.host.request({ type, run_id: run.run.run_id, ...fields });
    },
  };
}

/** The sample as the host gets it: the run's browser fields, and what the browser says is attached. */
async function withRunFields(run, pageSample) {
  const sample = { ...pageSample, run_id: run.run.run_id, browser: run.run.browser, browser_version: run.run.browser_version, os: run.run.os, extension_version: run.run.extension_version };
  // With the debugger permission (the control build), ask the browser itself whether
  // anything is attached to the tab (DevTools, an automation client). The control's
  // own attached half already says so.
  if (sample.observed?.debugger_attached === undefined) {
    const attached = await control.debuggerAttached(run.tabId);
    if (attached !== null) sample.observed = { ...sample.observed, debugger_attached: attached };
  }
  run.samples.push(sample);
  return sample;
}

/** The popup's state as the run ends, before the host hears of it. */
async function ending(run, { status, reason, failure }) {
  run.finished = true;
  clearTimeout(run.pageTimer);
  if (active === run) active = null;
  await run.stateWrites;
  // The popup's state first: once the host has recorded the end, `unobserved run` may
  // end the browser at any moment, and a state left "running" would look orphaned.
  await setRunState({
    ...endAsSaid(status, reason),
    failure,
    run_id: run.run.run_id,
    browser: run.run.browser,
    browser_version: run.run.browser_version,
    os: run.run.os,
    control: Boolean(run.run.plan.control),
    plan: run.run.plan,
    samples: run.samples,
    done: run.samples.length,
    total: run.total,
    minimum_reps: run.minimumReps,
    finished_at: new Date().toISOString(),
  });
}

/** The host's answer to the end: its analysis and how it recorded the run; then close up. */
async function ended(run, { status, reason, reply, error, why }) {
  try {
    if (error) throw error;
    // Ratios, intervals, verdicts and warnings come from the host's one analysis.
    if (reply?.analysis) await patchRunState({ analysis: reply.analysis });
    // How the host recorded the end decides what the popup says of it.
    const recorded = endAsRecorded(status, reply, why);
    if (recorded) await patchRunState(recorded);
  } catch (e) {
    await patchRunState({ phase: POPUP_PHASE.error, error: noteText(NOTE.endNotRecorded, { reason, message: e.message }), failure: e.failure ?? null });
  }
  if (run.tabId !== null) leaveBenchTab(run).catch((e) => console.warn(`Unobserved: ${e.message}`));
  try {
    run.host.onClose = null;
    run.host.disconnect();
  } catch {
    // already gone
  }
}

/** The background's side of the page session: the popup's state and the debugger. */
function pageSession(run) {
  return createPageSession(nativeTransport(run), {
    async plan() {
      if (run.debuggerBefore === undefined) run.debuggerBefore = await control.debuggerAttached(run.tabId);
      // A page per block (issue 36): a later page resumes where the one before it left.
      const resume = run.lastResume ?? null;
      return { plan: run.run.plan, arms: run.arms, upload_urls: run.uploadUrls, run_id: run.run.run_id, workload_key: run.workloadKey, take_turns: run.takeTurns, module_seed: run.moduleSeed, fresh_pages: true, resume };
    },
    async setCondition(attached) {
      if (!control.controlAvailable()) throw new Error(noteText(NOTE.controlUnavailable));
      if (attached) await control.attach(run.tabId);
      else await control.detach(run.tabId);
      run.condition = attached ? CONDITION.attached : CONDITION.detached;
    },
    newPage(rep) {
      run.resumeAt = { rep, condition: run.condition };
      run.lastResume = run.resumeAt;
    },
    progress: (step) => progress(run, { step }),
    sample: (sample) => withRunFields(run, sample),
    stored: () => progress(run, { done: run.samples.length, samples: run.samples }),
    autoProgress: (auto) => progress(run, { auto }),
    ending: (end) => ending(run, end),
    async observation(status) {
      // After the page's last step, ask once more whether anything is attached.
      const after = status === RUN_STATUS.complete ? await control.debuggerAttached(run.tabId) : null;
      return { debugger_before: run.debuggerBefore ?? null, debugger_after: after };
    },
    ended: (end) => ended(run, end),
  });
}

/** The benchmark tab after the run: a summary, the tab the user came from, or gone. */
async function leaveBenchTab(run) {
  if (run.afterRun === 'summary') {
    await api.tabs.update(run.tabId, { url: api.runtime.getURL(SUMMARY_PAGE) });
    return;
  }
  await api.tabs.remove(run.tabId);
  if (run.afterRun === 'return' && run.cameFrom?.id !== undefined) {
    await api.tabs.update(run.cameFrom.id, { active: true });
  }
}

/**
 * A run stored as running while no run lives in this background was orphaned: the
 * previous service worker or event page died mid-run. Say so, and record the run as
 * incomplete through a fresh host, so neither the popup nor `unobserved run` waits on it.
 */
export async function recoverOrphanedRun() {
  const state = await getRunState();
  if (state.phase !== POPUP_PHASE.running || active) return;
  const why = END_REASON.backgroundStopped;
  await setRunState({ ...state, phase: POPUP_PHASE.error, error: endWords(why, null) });
  try {
    const [host] = await connectHost(api.runtime.getManifest().version, state.browser);
    await host.request({ type: HOST_MESSAGE.runFinished, run_id: state.run_id, status: RUN_STATUS.incomplete, reason: null, end_reason: why });
    host.disconnect();
  } catch (e) {
    console.warn(`Unobserved: could not record the orphaned run: ${e.message}`);
  }
}
