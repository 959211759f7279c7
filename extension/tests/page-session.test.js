// One page conversation, carried by each of the two real transports: the background's
// native port (background/run-controller.js) and the HTTP of `unobserved serve`
// (bench/host-channel.js). Both must send the host the same messages, by the same
// names, with the same fields, and give the page the same answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { EXTENSION, PAGE } from '../lib/page-protocol.js';
import { AUTO_REASON, END_REASON, HOST_MESSAGE, HOST_REPLY, RUN_STATUS } from '../lib/names.js';
import { autoDoneReason, endWords } from '../lib/words.js';

const NAMES = JSON.parse(readFileSync(new URL('../../tests/fixtures/names.json', import.meta.url), 'utf8'));
const RUN_ID = '20261201-120000-abcd';
const TOKEN = 'ab'.repeat(16);
const ARMS = [{ arm: { kind: 'body', body: 'Blob' }, label: 'Blob' }];
const PLAN = { size_bytes: 1024, reps: 1, warmup: 0, bodies: ['Blob'], auto: { max_reps: 3, max_seconds: 60 } };
const DECISION = { more: false, stop: 'settled', reason: { kind: AUTO_REASON.settled }, settled: 1, comparisons: 1, seconds_left: 41, settled_verdicts: [] };
const STEP = { label: 'Blob', arm: ARMS[0].arm, rep: 0, phase: 'measure' };
const sample = (rep) => ({ body: 'Blob', arm: ARMS[0].arm, rep, upload_id: `u${rep}`, bytes_sent: 1024, sha256_sent: 'ab', page_ms: 1, status: 'ok' });

/** The page's side of a short auto-sampled run, in order. */
const CONVERSATION = [
  { type: PAGE.ready },
  { type: PAGE.progress, step: STEP },
  { type: PAGE.sample, sample: sample(0) },
  { type: PAGE.sample, sample: sample(1) },
  { type: PAGE.autoCheck, request_id: 1, reps_done: 1 },
  { type: PAGE.done, auto_reason: DECISION.reason },
];

/** What the host answers each message with, whichever way it came. */
function hostReply(type, fields) {
  switch (type) {
    case HOST_MESSAGE.samples:
      return { type: HOST_REPLY.samplesAck, run_id: RUN_ID, count: fields.samples.length };
    case HOST_MESSAGE.autoCheck:
      return { type: HOST_REPLY.autoDecision, run_id: RUN_ID, ...DECISION };
    case HOST_MESSAGE.runFinished:
      return { type: HOST_REPLY.runFinished, run_id: RUN_ID, status: fields.status, analysis: null };
    default:
      throw new Error(`the test host was not asked ${type}`);
  }
}

/** A browser with nothing but what the background touches, in memory. */
function fakeBrowser() {
  const storage = {};
  return {
    runtime: { id: 'x', getManifest: () => ({ version: '0.1.0', permissions: [] }), getURL: (p) => `ext://x/${p}` },
    storage: { local: { get: async (k) => ({ [k]: storage[k] }), set: async (o) => Object.assign(storage, o) } },
    tabs: { create: async () => ({ id: 7 }), query: async () => [], remove: async () => {}, update: async () => {} },
    storage_: storage,
  };
}

async function overNativePort() {
  globalThis.chrome = fakeBrowser();
  const { startRun, attachBenchPort } = await import('../background/run-controller.js');
  const sent = [];
  const host = {
    closed: false,
    async request(message) {
      const { type, run_id: runId, ...fields } = message;
      if (type === HOST_MESSAGE.runStarted) return { type, run_id: runId, arms: ARMS, measured_uploads: 3, upload_urls: {} };
      assert.equal(runId, RUN_ID);
      sent.push({ type, fields });
      return hostReply(type, fields);
    },
    disconnect() {},
  };
  const hello = { sink: { upload_url: 'http://127.0.0.1:1/upload/t', page_url: 'http://127.0.0.1:1/bench/index.html' } };
  const env = { browser: 'Chromium', browser_version: '1', os: 'Linux' };
  await startRun({ plan: PLAN, source: 'job', runId: RUN_ID, connection: [host, hello], env });
  const toPage = [];
  let listener;
  attachBenchPort({
    sender: { tab: { id: 7 } },
    onMessage: { addListener: (fn) => (listener = fn) },
    onDisconnect: { addListener: () => {} },
    postMessage: (m) => toPage.push(m),
    disconnect() {},
  });
  for (const m of CONVERSATION) await listener(m);
  return { sent, toPage, state: globalThis.chrome.storage_.runState };
}

async function overServeHttp() {
  const sent = [];
  globalThis.navigator = {};
  globalThis.location = { pathname: '/bench/serve.html', hash: `#${TOKEN}` };
  globalThis.fetch = async (url, init) => {
    const path = url.replace(`/serve/${TOKEN}/`, '');
    // The key and the page's load token are the HTTP transport's own (PROTOCOL.md).
    const { key, load, ...fields } = JSON.parse(init.body);
    let reply;
    if (path === 'start') {
      reply = { type: HOST_REPLY.runStarted, run_id: RUN_ID, run_key: 'k', plan: PLAN, arms: ARMS, measured_uploads: 3, upload_urls: {} };
    } else {
      const [runs, runId, type] = path.split('/');
      if (!Object.values(HOST_MESSAGE).includes(type)) return { ok: false, status: 404, json: async () => ({ type: 'error', name: 'not-found' }) };
      assert.deepEqual([runs, runId, key], ['runs', RUN_ID, 'k']);
      sent.push({ type, fields });
      reply = hostReply(type, fields);
    }
    return { ok: true, status: 200, json: async () => reply };
  };
  const { hostChannel } = await import('../bench/host-channel.js');
  const toPage = [];
  const finished = new Promise((resolve) => {
    hostChannel.on('finished', resolve);
    hostChannel.on('failed', (error) => resolve({ error }));
  });
  hostChannel.start();
  for (const m of CONVERSATION) await hostChannel.post(m, (r) => toPage.push(r));
  return { sent, toPage, finished: await finished };
}

test('the native port and serve\'s HTTP carry one page conversation alike', async () => {
  const native = await overNativePort();
  const http = await overServeHttp();
  // The same host messages, by the same names, in the same order.
  assert.deepEqual(native.sent.map((m) => m.type), [HOST_MESSAGE.samples, HOST_MESSAGE.samples, HOST_MESSAGE.autoCheck, HOST_MESSAGE.runFinished]);
  assert.deepEqual(http.sent.map((m) => m.type), native.sent.map((m) => m.type));
  // Every name serve carries is one of the run messages it routes (names.json).
  for (const { type } of http.sent) assert.ok(NAMES.serve_messages.includes(type), type);
  // The same fields, but for what only the background knows (the run's browser
  // fields on a sample, whether a debugger was attached).
  const comparable = ({ type, fields }) => (type === HOST_MESSAGE.samples ? { type, n: fields.samples.length } : { type, fields: { ...fields, observation: null } });
  assert.deepEqual(http.sent.map(comparable), native.sent.map(comparable));
  // `done` is worded the same on both, and the host's auto stop is passed on.
  const end = http.sent.at(-1).fields;
  assert.deepEqual([end.status, end.reason, end.auto_stop], [RUN_STATUS.complete, autoDoneReason(DECISION.reason, 2), DECISION.stop]);
  // The page hears the same: the plan, then the auto decision with the host's progress.
  assert.deepEqual(http.toPage.map((m) => m.type), [EXTENSION.plan, EXTENSION.autoDecision]);
  assert.deepEqual(http.toPage.map((m) => m.type), native.toPage.map((m) => m.type));
  assert.deepEqual(http.toPage[1], native.toPage[1]);
  assert.equal(native.toPage[1].progress.settled, DECISION.settled);
  assert.deepEqual([native.state.phase, native.state.reason], ['done', undefined]);
  assert.equal(http.finished.run_id, RUN_ID);
});

test('a page that fails tells the host why by name, with the browser\'s error as its detail', async () => {
  const { createPageSession } = await import('../lib/page-session.js');
  const sent = [];
  const seen = {};
  const session = createPageSession(
    { send: async (type, fields) => (sent.push({ type, fields }), hostReply(type, fields)) },
    { ending: (e) => (seen.ending = e), ended: (e) => (seen.ended = e) },
  );
  await session.handle({ type: PAGE.failed, error: 'TypeError: boom' }, () => {});
  const { fields } = sent.at(-1);
  assert.deepEqual([fields.status, fields.end_reason, fields.reason], [RUN_STATUS.failed, END_REASON.pageFailed, 'TypeError: boom']);
  // The page's own view of the end is in the host's words for that name.
  assert.equal(seen.ending.reason, endWords(END_REASON.pageFailed, 'TypeError: boom'));
});
