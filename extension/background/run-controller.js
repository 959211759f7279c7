// One run at a time: connect to the host, open the benchmark page at the sink, hand it
// the plan, relay every sample to the host as it completes, and close up.
import { api } from '../lib/api.js';
import { connectHost } from './native-port.js';
import { getRunState, setRunState, patchRunState } from './run-state.js';
import { describeBrowser } from '../lib/environment.js';
import { toHex } from '../lib/bodies.js';
import * as control from './debugger-control.js';
import { SUMMARY_PAGE } from '../lib/defaults.js';
import { EXTENSION, PAGE } from '../lib/page-protocol.js';
import { RUN_STATUS, endAsRecorded, endAsSaid } from '../lib/run-end.js';

let active = null;

export function isRunning() {
  return active !== null;
}

function newRunId() {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${t}-${crypto.getRandomValues(new Uint16Array(1))[0].toString(16).padStart(4, '0')}`;
}

/**
 * Starts a run. `connection` is an already greeted host (the job path); otherwise one
 * is opened here (the popup path). Both paths then share everything below.
 */
export async function startRun({ plan, source, runId, afterRun = 'close', sinkUrl = '', connection = null, env: known = null }) {
  if (active) throw new Error('A run is already in progress.');
  // Claimed before the first await, so a concurrent check sees a run starting.
  active = { pendingStart: true };
  const env = known ?? (await describeBrowser(api));
  const extensionVersion = api.runtime.getManifest().version;
  try {
    const [host, hello] = connection ?? (await connectHost(extensionVersion, env.browser));
    const run = {
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
    const started = await host.request({ type: 'run-started', run });
    if (sinkUrl && plan.workloads?.encrypted) {
      throw new Error('Encrypted workloads need the local sink: the key goes to it over native messaging, never over the network.');
    }
    // Encrypted workloads: a fresh key per run, handed to the host over native
    // messaging (never HTTP) so the sink can decrypt and verify every chunk.
    let workloadKey = null;
    if (plan.workloads?.encrypted) {
      const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt']);
      workloadKey = toHex(await crypto.subtle.exportKey('raw', key));
      await host.request({ type: 'workload-key', run_id: run.run_id, key: workloadKey });
    }
    // Where each transport's uploads go: the TLS listeners the host started for this
    // run and h1's local sink, or the remote sink under its URL's transport, without
    // the pin its URL carries (the host checked that one).
    const uploadUrls = sinkUrl ? started.upload_urls : { ...started.upload_urls, h1: hello.sink.upload_url };
    const plannedArms = started.arms;
    const total = started.measured_uploads;
    const takeTurns = started.take_turns === true;
    active = { host, run, uploadUrls, arms: plannedArms, total, takeTurns, afterRun, cameFrom: null, workloadKey, tabId: null, samples: [], finished: false, relayed: Promise.resolve(), stateWrites: Promise.resolve() };
    host.onClose = (why, failure) => finish(RUN_STATUS.INCOMPLETE, `the native host went away: ${why}`, failure);
    await setRunState({
      phase: 'running',
      run_id: run.run_id,
      browser: env.browser,
      done: 0,
      total,
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
    await setRunState({ phase: 'error', error: String(e?.message ?? e), failure: e?.failure ?? null, browser: env.browser });
    throw e;
  }
}

/** The relay in the benchmark tab connected. Only the tab we opened is listened to. */
export function attachBenchPort(port) {
  if (!active || active.pendingStart || port.sender?.tab?.id !== active.tabId) {
    port.disconnect();
    return;
  }
  const run = active;
  port.onMessage.addListener((msg) => onPageMessage(run, port, msg));
  port.onDisconnect.addListener(() => {
    if (!run.finished) finish(RUN_STATUS.INCOMPLETE, 'the benchmark tab closed before the run finished');
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

/** The background's side of the page protocol: one handler per PAGE message. */
const PAGE_HANDLERS = Object.freeze({
  async [PAGE.ready](run, port) {
    if (run.debuggerBefore === undefined) run.debuggerBefore = await control.debuggerAttached(run.tabId);
    port.postMessage({ type: EXTENSION.plan, plan: run.run.plan, arms: run.arms, upload_urls: run.uploadUrls, run_id: run.run.run_id, workload_key: run.workloadKey, take_turns: run.takeTurns });
  },
  async [PAGE.setCondition](run, port, msg) {
    let reply;
    try {
      if (!control.controlAvailable()) throw new Error(control.controlUnavailableReason());
      if (msg.attached) await control.attach(run.tabId);
      else await control.detach(run.tabId);
      reply = { ok: true };
    } catch (e) {
      reply = { ok: false, error: String(e?.message ?? e) };
    }
    port.postMessage({ type: EXTENSION.conditionSet, request_id: msg.request_id, ...reply });
  },
  async [PAGE.progress](run, port, msg) {
    await progress(run, { step: msg.step });
  },
  async [PAGE.sample](run, port, msg) {
    const sample = { ...msg.sample, run_id: run.run.run_id, browser: run.run.browser, browser_version: run.run.browser_version, os: run.run.os, extension_version: run.run.extension_version };
    // With the debugger permission (the control build), ask the browser itself whether
    // anything is attached to the tab (DevTools, an automation client). The control's
    // own attached half already says so.
    if (sample.observed?.debugger_attached === undefined) {
      const attached = await control.debuggerAttached(run.tabId);
      if (attached !== null) sample.observed = { ...sample.observed, debugger_attached: attached };
    }
    run.samples.push(sample);
    // Relayed one by one as they complete, so a crash loses none already relayed.
    run.relayed = run.relayed.then(() => run.host.request({ type: 'samples', run_id: run.run.run_id, samples: [sample] }));
    try {
      await run.relayed;
      await progress(run, { done: run.samples.length, samples: run.samples });
    } catch (e) {
      finish(RUN_STATUS.FAILED, `could not store a sample: ${e.message}`, e.failure ?? null);
    }
  },
  async [PAGE.autoCheck](run, port, msg) {
    // Every sample so far must be stored before the host judges them.
    await run.relayed.catch(() => {});
    let reply;
    try {
      const d = await run.host.request({ type: 'auto-check', run_id: run.run.run_id, reps_done: msg.reps_done });
      reply = { more: d.more, reason: d.reason, progress: { settled: d.settled, comparisons: d.comparisons, seconds_left: d.seconds_left, settled_verdicts: d.settled_verdicts ?? [] } };
      // Why --auto stopped, as the host typed it, for the run's end record.
      run.autoStop = d.stop ?? null;
      await progress(run, { auto: { reps_done: msg.reps_done, ...reply.progress } });
    } catch (e) {
      reply = { more: false, reason: `auto-check failed: ${e.message}` };
    }
    port.postMessage({ type: EXTENSION.autoDecision, request_id: msg.request_id, ...reply });
  },
  async [PAGE.turn](run, port, msg) {
    // The previous rep's samples are stored before the next build's rep begins.
    await run.relayed.catch(() => {});
    let reply;
    try {
      await run.host.request({ type: 'turn', run_id: run.run.run_id });
      reply = { ok: true };
    } catch (e) {
      reply = { ok: false, error: String(e?.message ?? e) };
    }
    port.postMessage({ type: EXTENSION.turnGiven, request_id: msg.request_id, ...reply });
  },
  async [PAGE.done](run, port, msg) {
    await run.relayed.catch(() => {});
    run.debuggerAfter = await control.debuggerAttached(run.tabId);
    const reason = msg.auto_reason ? `auto: ${msg.auto_reason} after ${run.samples.length} samples` : null;
    finish(RUN_STATUS.COMPLETE, reason, null, run.autoStop ?? null);
  },
  async [PAGE.failed](run, port, msg) {
    finish(RUN_STATUS.FAILED, msg.error);
  },
});

async function onPageMessage(run, port, msg) {
  if (run !== active) return;
  if (Object.hasOwn(PAGE_HANDLERS, msg?.type)) await PAGE_HANDLERS[msg.type](run, port, msg);
}

async function finish(status, reason, failure = null, autoStop = null) {
  const run = active;
  if (!run || run.finished) return;
  run.finished = true;
  active = null;
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
    finished_at: new Date().toISOString(),
  });
  try {
    const observation = { debugger_before: run.debuggerBefore ?? null, debugger_after: run.debuggerAfter ?? null };
    const ending = { type: 'run-finished', run_id: run.run.run_id, status, reason, observation, auto_stop: autoStop };
    if (run.host.closed) {
      // The host died mid-run: start a fresh one just to record how the run ended.
      // Samples it acknowledged before dying are already on disk.
      const [fresh] = await connectHost(run.run.extension_version, run.run.browser);
      run.host = fresh;
    }
    const reply = await run.host.request(ending);
    // Ratios, intervals, verdicts and warnings come from the host's one analysis.
    if (reply?.analysis) await patchRunState({ analysis: reply.analysis });
    // How the host recorded the end decides what the popup says of it.
    const recorded = endAsRecorded(status, reply);
    if (recorded) await patchRunState(recorded);
  } catch (e) {
    await patchRunState({ phase: 'error', error: `${reason ?? 'The run finished'}, but its end could not be recorded: ${e.message}`, failure: e.failure ?? null });
  }
  if (run.tabId !== null) leaveBenchTab(run).catch((e) => console.warn(`Unobserved: ${e.message}`));
  try {
    run.host.onClose = null;
    run.host.disconnect();
  } catch {
    // already gone
  }
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
  if (state.phase !== 'running' || active) return;
  const reason = 'the extension background stopped mid-run (the browser ended it or it crashed); the run is incomplete';
  await setRunState({ ...state, phase: 'error', error: reason });
  try {
    const [host] = await connectHost(api.runtime.getManifest().version, state.browser);
    await host.request({ type: 'run-finished', run_id: state.run_id, status: RUN_STATUS.INCOMPLETE, reason });
    host.disconnect();
  } catch (e) {
    console.warn(`Unobserved: could not record the orphaned run: ${e.message}`);
  }
}
