// The benchmark itself. It runs in an ordinary http page served by the sink, so the
// uploads take the same path as a web app's. The plan arrives from the extension via
// the relay content script; samples go back the same way.
import { buildSteps, stepsForRep } from '../lib/plan.js';
import { randomBytes, makeBody, sha256Hex } from '../lib/bodies.js';
import { pairSample } from '../lib/pairing.js';
import { pageTiming, watchRequests } from '../lib/timing.js';
import { newUploadId, withUpload } from '../lib/upload-id.js';
import * as workloads from './workloads.js';
import { pacer, pending, workerSleep } from '../lib/pacing.js';
import { NOTE, noteText, settledText } from '../lib/format.js';
import { sampleFailure } from '../lib/words.js';
import { BENCH_PORT, EXTENSION, FROM_EXTENSION, FROM_PAGE, PAGE } from '../lib/page-protocol.js';
import { hostChannel } from './host-channel.js';
import { CONDITION } from '../lib/names.js';
import { xhrUpload } from '../lib/xhr.js';
import * as modules from './module-arm.js';
import { moduleBytes } from '../lib/module-bytes.js';
const statusEl = document.getElementById('status');
const logEl = document.getElementById('log');
let started = false;

// Served by the local sink, this is an ordinary web page and talks to the extension
// through the relay content script. Opened as the extension's own page (for a remote
// sink), it talks to the background directly.
const inExtension = location.protocol.endsWith('-extension:');
const extApi = inExtension ? (globalThis.browser ?? globalThis.chrome) : null;
let extPort = null;

function post(message) {
  // Served by `unobserved serve`: no extension; the host hears the page over HTTP.
  if (hostChannel) {
    hostChannel.post(message, onExtensionMessage);
    return;
  }
  if (!inExtension) {
    window.postMessage({ ...message, source: FROM_PAGE }, window.location.origin);
    return;
  }
  if (!extPort) {
    extPort = extApi.runtime.connect({ name: BENCH_PORT });
    extPort.onMessage.addListener((m) => onExtensionMessage(m));
    extPort.onDisconnect.addListener(() => {
      extPort = null;
      onExtensionMessage({ type: EXTENSION.disconnected });
    });
  }
  extPort.postMessage(message);
}

function show(text) {
  statusEl.textContent = text;
}

function log(line) {
  logEl.textContent += `${line}\n`;
}

/** What the page can see of anything watching it. */
function observation(condition) {
  const o = { webdriver: navigator.webdriver === true };
  // In a control run the attached half is observed by construction: our own debugger.
  if (condition) o.debugger_attached = condition === CONDITION.attached;
  return o;
}

// Replies from the background to requests the page made (e.g. switching condition).
const waiting = new Map();
let nextRequest = 1;

function request(message) {
  const id = nextRequest++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    post({ ...message, request_id: id });
  });
}

async function setCondition(condition) {
  const reply = await request({ type: PAGE.setCondition, attached: condition === CONDITION.attached });
  if (!reply.ok) throw new Error(noteText(NOTE.conditionNotSet, { attach: condition === CONDITION.attached, error: reply.error }));
}

/** The same upload through XMLHttpRequest (`--api xhr`), in uploadOnce's shape. */
async function uploadXhr(kind, bytes, url) {
  const { body } = makeBody(kind, bytes);
  const t0 = performance.now();
  const r = await xhrUpload(url, body);
  const timing = r.reply.then(() => pageTiming(url, t0)).catch(() => null);
  return { pageMs: r.pageMs, reply: r.reply, timing, httpStatus: r.status, rejection: r.failed && `XMLHttpRequest: ${r.failed}` };
}

async function uploadOnce(kind, bytes, url, api) {
  if (api === 'xhr') return uploadXhr(kind, bytes, url);
  const { body, init } = makeBody(kind, bytes);
  const t0 = performance.now();
  try {
    const res = await fetch(url, { method: 'PUT', body, cache: 'no-store', ...init });
    const pageMs = performance.now() - t0;
    // The digest follows in the body once the host has hashed it: read off the
    // pacing path (lib/pacing.js), so the host's speed never sets the next start.
    const reply = res.json().catch(() => null);
    // Resource Timing's responseEnd exists once the body is read.
    const timing = reply.then(() => pageTiming(url, t0)).catch(() => null);
    return { pageMs, reply, timing, httpStatus: res.status, rejection: null };
  } catch (e) {
    return { pageMs: performance.now() - t0, reply: Promise.resolve(null), httpStatus: null, rejection: `${e.name}: ${e.message}` };
  }
}

/**
 * Every step of the plan from rep `from` on; with --auto, more reps for as long as the
 * host says so. A plan that alternates loads (`--load none,cpu`) asks before every rep,
 * so the host switches a block's load on or off before its first upload. Every page
 * warms up first: a fresh page of a later block (`from` > 0) starts cold too, and its
 * first rep was granted before the page was renewed.
 */
async function* planSteps(plan, arms, state, from) {
  const everyRep = (plan.loads?.length ?? 0) > 1;
  yield* buildSteps(arms, { ...plan, reps: 0 });
  const granted = Math.max(everyRep ? 1 : plan.reps, from + 1);
  for (let rep = from; rep < granted; rep++) yield* stepsForRep(arms, plan, rep);
  if (!plan.auto && !everyRep) return;
  for (let rep = granted; ; rep++) {
    // The host judges stored samples: every digest of the rep first.
    await state.digests.drain();
    const decision = await request({ type: PAGE.autoCheck, reps_done: rep });
    state.autoReason = decision.reason;
    state.progress = decision.progress ? ` · ${settledText(decision.progress)}` : '';
    if (!decision.more) return;
    yield* stepsForRep(arms, plan, rep);
  }
}

/**
 * A page per block (issue 36): the first measured step of a block after this page's
 * first opens the block in a fresh page, so what a page draws once (its JS heap, its
 * blobs) is drawn once per block. True when this page hands over and must stop.
 */
async function handOver(step, freshPages, plan, from, state) {
  const k = plan.block_reps ?? 0;
  if (!freshPages || k <= 0 || step.phase !== 'measure' || step.rep === from || step.rep % k !== 0) return false;
  await state.digests.drain();
  const reply = await request({ type: PAGE.newPage, rep: step.rep });
  if (!reply.ok) throw new Error(noteText(NOTE.noFreshPage, { rep: step.rep, error: reply.error }));
  show(noteText(NOTE.freshPage, { block: step.rep / k + 1 }));
  location.reload();
  return true;
}

/** Runs one workload arm and shapes its result like a sample. */
async function runWorkload(step, w, ctx, bytes, sha) {
  const result =
    w.kind === 'encrypted' ? await workloads.encryptedUpload(w, ctx)
    : w.kind === 'download' ? await workloads.download(w, ctx)
    : await workloads.parallel(w, ctx, bytes, sha);
  return { body: step.label, arm: step.arm, rep: step.rep, head: null, content_type: null, observed: observation(step.arm.condition), ...result };
}

/**
 * The plan's workload modules, ready to run: the page's policy limited to the run's
 * sinks, each module imported, and the bytes of each rep. Null without module arms.
 */
async function prepareModules(arms, uploadUrls, ctx, seedHex, plan, sleep) {
  if (!arms.some(({ arm }) => arm.kind === 'module')) return null;
  if (!seedHex) throw new Error(noteText(NOTE.noModuleSeed));
  const blocked = modules.violations(document);
  modules.installPolicy(document, modules.policyFor(uploadUrls, location.origin));
  const sink = { base: ctx.base, token: ctx.token, runId: ctx.runId };
  return {
    sink,
    blocked,
    loaded: await modules.loadModules(arms, sink),
    // One stream for the whole run, made once: bytes made before some arms of a rep and
    // not others would favour the others (an A/A pair read 1.37x before this).
    bytes: await moduleBytes(seedHex, 0, plan.size_bytes),
    timeoutMs: (plan.module_timeout_secs ?? 60) * 1000,
    sleep,
  };
}

/**
 * One module upload of the rep's `bytes`, once it settled: its sample follows with the
 * page's marks of its requests (for its phases) once the browser has delivered them,
 * off the timed path as a built-in arm's digest is.
 */
async function runModuleStep(step, m, ctx, bytes, observed) {
  const routes = modules.newModuleUpload(m.sink);
  const watch = watchRequests([routes.url, routes.tusEndpoint]);
  const { sample, t0 } = await modules.runModule(m.loaded.get(step.arm.name), { bytes, rep: step.rep, routes, key: ctx.key, timeoutMs: m.timeoutMs, blocked: m.blocked });
  const page = { body: step.label, arm: step.arm, rep: step.rep, head: null, content_type: null, observed, intact: false, mbps: null, ...sample };
  return { sample: watch.marks(t0, m.sleep).then((timing) => ({ ...page, page_timing: timing })) };
}

/**
 * Before anything is measured, the sink must take a tiny upload: otherwise every body
 * would fail and read as "the browser cannot upload this kind", when the sink is simply
 * not there (a typo in a remote sink's URL, a stopped `unobserved sink`).
 */
async function checkSink(uploadUrl, resuming) {
  let why;
  try {
    const res = await fetch(`${uploadUrl}?probe=1`, { method: 'PUT', body: new Uint8Array(16), cache: 'no-store' });
    if (res.ok) {
      await res.body?.cancel();
      return;
    }
    why = { status: res.status };
  } catch (e) {
    why = { rejection: `${e.name}: ${e.message}` };
  }
  // A fresh page of a later block: what the blocks before stored is kept (`resuming`).
  throw new Error(noteText(NOTE.sinkRefusedTest, { origin: new URL(uploadUrl).origin, resuming, ...why }));
}

/** An arm without a transport travels over h1, as every run before transports did. */
const transportOf = (arm) => arm.transport ?? 'h1';

/** Interleaved builds: wait for this build's turn before each rep (warm-ups included). */
async function takeTurn() {
  const reply = await request({ type: PAGE.turn });
  if (!reply.ok) throw new Error(noteText(NOTE.noTurn, reply));
}

/**
 * Before the first upload: every sink the plan's transports use takes a test upload (a
 * TLS sink the browser does not trust fails here, loudly, not as arms that "cannot
 * upload"), the workloads' routes and key, and the modules. The run's context and modules.
 */
async function setUp({ plan, arms, uploadUrls, keyHex, runId, moduleSeed, resume, sleep }) {
  const transports = new Set(arms.map(({ arm }) => transportOf(arm)));
  for (const t of transports) {
    if (!uploadUrls[t]) throw new Error(noteText(NOTE.noSinkFor, { transport: t }));
    await checkSink(uploadUrls[t], resume !== null);
  }
  // Workloads travel over h1; a run on an https:// remote sink has none (the host
  // refuses them there), and no h1 sink.
  const uploadUrl = uploadUrls.h1;
  const ctx = { ...(uploadUrl ? workloads.sinkRoutes(uploadUrl) : {}), uploadUrl, runId, key: null };
  if (keyHex) {
    const raw = new Uint8Array(keyHex.match(/../g).map((h) => parseInt(h, 16)));
    ctx.key = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt']);
  }
  const mods = await prepareModules(arms, uploadUrls, ctx, moduleSeed, plan, sleep);
  return { ctx, mods };
}

/** One built-in body upload: timed, its digest read off the pacing path, its sample reported. */
async function uploadStep(step, { uploadUrls, runId, bytes, sha, observed, pace, state, report }) {
  const uploadId = newUploadId();
  const url = withUpload(`${uploadUrls[transportOf(step.arm)]}?arm=${encodeURIComponent(step.label)}&rep=${step.rep}&phase=${step.phase}`, runId, uploadId);
  const [sent, shaSent] = [bytes.length, sha];
  const result = await uploadOnce(step.arm.body, bytes, url, step.arm.api);
  const headersAt = performance.now();
  // A body the browser refused had no reply: the settle still runs from the last one.
  if (!result.rejection) pace.settleFrom(headersAt);
  // digest_ms: how long after the headers the digest was read (BENCHMARKS.md: the
  // settle time must cover it, or the next upload takes another connection).
  const paired = (reply, timing) => ({ ...pairSample({ body: step.label, rep: step.rep, uploadId, bytesSent: sent, shaSent, observed, ...result, reply }), arm: step.arm, page_timing: timing ?? null, digest_ms: reply ? performance.now() - headersAt : null });
  state.digests.add(Promise.all([result.reply, result.timing]).then(([reply, timing]) => report(paired(reply, timing))));
}

/** One step of the plan, as its arm's kind runs it: a module, a workload, or a body upload. */
async function runStep(step, run) {
  const { plan, ctx, mods, pace, state, wanted, what } = run;
  const workload = workloads.workloadOf(step.arm, plan);
  const report = (sample) => {
    if (step.phase !== 'measure') return;
    log(noteText(NOTE.sampleLine, { what, rep: step.rep, status: sample.status, mbps: sample.mbps?.toFixed(0), failure: sampleFailure(sample) }));
    post({ type: PAGE.sample, sample });
  };
  const given = step.arm.kind === 'module' ? mods.bytes : null;
  await pace.ready();
  if (given) {
    const { sample } = await runModuleStep(step, mods, ctx, given, observation(wanted));
    pace.settleFrom();
    state.digests.add(sample.then(report));
  } else if (workload) {
    report(await runWorkload(step, workload, ctx, run.bytes, run.sha));
    pace.settleFrom();
  } else {
    await uploadStep(step, { ...run, observed: observation(wanted), report });
  }
}

async function run({ plan, arms, upload_urls: uploadUrls, workload_key: keyHex, run_id: runId, take_turns: takeTurns, module_seed: moduleSeed, fresh_pages: freshPages = false, resume = null }) {
  const state = { autoReason: null, progress: '', digests: pending() };
  const sleep = workerSleep(new Worker(new URL('../lib/sleep-worker.js', import.meta.url)));
  const pace = pacer({ clock: () => performance.now(), sleep });
  const { ctx, mods } = await setUp({ plan, arms, uploadUrls, keyHex, runId, moduleSeed, resume, sleep });
  const from = resume?.rep ?? 0;
  const steps = planSteps(plan, arms, state, from);
  let bytes = null;
  let sha = null;
  let bytesKey = null;
  // A later page of a control run finds the debugger as the page before it left it.
  let condition = resume?.condition ?? null;
  for await (const step of steps) {
    // Every arm of a rep carries the same bytes; each rep gets fresh ones.
    const key = `${step.phase}:${step.rep}`;
    if (key !== bytesKey && (await handOver(step, freshPages, plan, from, state))) return;
    if (key !== bytesKey && takeTurns) {
      // The last rep's digests first: the other build's uploads must not share the
      // CPU with this build's hashing, and its samples are stored before the next rep.
      await state.digests.drain();
      await takeTurn();
    }
    const wanted = step.arm.condition;
    if (wanted && wanted !== condition) {
      await setCondition(wanted);
      condition = wanted;
    }
    if (key !== bytesKey) {
      bytes = randomBytes(plan.size_bytes);
      sha = await sha256Hex(bytes); // outside the timed span
      bytesKey = key;
    }
    post({ type: PAGE.progress, step });
    const what = noteText(NOTE.armUnder, { label: step.label, condition: wanted });
    show(`${noteText(NOTE.step, { step, what })}${state.progress}`);
    await runStep(step, { plan, ctx, mods, pace, state, wanted, what, uploadUrls, runId, bytes, sha });
  }
  await state.digests.drain();
  if (condition === CONDITION.attached) await setCondition(CONDITION.detached);
  show(noteText(NOTE.benchDone));
  post({ type: PAGE.done, auto_reason: state.autoReason });
}

function onExtensionMessage(data) {
  const pending = waiting.get(data.request_id);
  if (pending) {
    waiting.delete(data.request_id);
    pending.resolve(data);
    return;
  }
  if (data.type === EXTENSION.plan && !started) {
    started = true;
    run(data).catch((e) => {
      show(noteText(NOTE.failed, e));
      post({ type: PAGE.failed, error: `${e.name}: ${e.message}` });
    });
  } else if (data.type === EXTENSION.disconnected && !started) {
    show(noteText(NOTE.benchNotConnected));
  }
}

window.addEventListener('message', (event) => {
  if (event.source !== window || event.data?.source !== FROM_EXTENSION) return;
  onExtensionMessage(event.data);
});

// Ask for the plan until the extension answers (the relay may attach a moment later).
const ask = setInterval(() => (started ? clearInterval(ask) : post({ type: PAGE.ready })), 500);
post({ type: PAGE.ready });
