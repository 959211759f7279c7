// The page's channel to the host when `unobserved serve` (or `unobserved run --browser
// webkit`) served it: no extension, so the page protocol's messages go to the host over
// HTTP, through the sink, with the session token from the URL's fragment (PROTOCOL.md,
// "Page ↔ host over HTTP"). bench.js posts to this as it posts to the extension; the
// answers come back in the extension's words. The host decides what is stored.
import { EXTENSION, PAGE } from '../lib/page-protocol.js';
import { RUN_STATUS } from '../lib/run-end.js';

/** Served by `serve`: its own page, with the session token in the fragment. */
const token = location.pathname.endsWith('/serve.html') && /^#[0-9a-f]{32}$/.test(location.hash) ? location.hash.slice(1) : null;

async function call(path, body) {
  const res = await fetch(`/serve/${token}/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
  });
  const reply = await res.json().catch(() => null);
  if (!res.ok || reply?.type === 'error') {
    const error = new Error(reply?.message ?? `the host answered HTTP ${res.status}`);
    error.name = reply?.name ?? 'HostError';
    throw error;
  }
  return reply;
}

/** What Chromium-family browsers offer about themselves; nothing elsewhere. */
async function clientHints() {
  const data = navigator.userAgentData;
  if (!data) return null;
  try {
    return await data.getHighEntropyValues(['fullVersionList', 'platform', 'platformVersion', 'mobile']);
  } catch {
    return { brands: data.brands, mobile: data.mobile, platform: data.platform };
  }
}

function createHostChannel() {
  let wantStart = null;
  const wanted = new Promise((resolve) => (wantStart = resolve));
  let deliver = null;
  let starting = null;
  let run = null;
  let relayed = Promise.resolve();
  let autoStop = null;
  const listeners = { progress: () => {}, finished: () => {}, failed: () => {} };

  const keyed = (path, body) => call(`runs/${run.run_id}/${path}`, { key: run.run_key, ...body });

  async function begin() {
    await wanted;
    run = await call('start', { hints: await clientHints() });
    deliver({ type: EXTENSION.plan, plan: run.plan, arms: run.arms, upload_urls: run.upload_urls, run_id: run.run_id });
  }

  async function finish(status, reason) {
    await relayed.catch(() => {});
    const reply = await keyed('finish', { status, reason, auto_stop: autoStop });
    return { ...run, analysis: reply.analysis ?? null };
  }

  const handlers = {
    [PAGE.ready]() {
      starting ??= begin().catch((e) => listeners.failed(e));
    },
    [PAGE.setCondition](msg) {
      deliver({ type: EXTENSION.conditionSet, request_id: msg.request_id, ok: false, error: 'a page served by `unobserved serve` cannot attach a debugger' });
    },
    [PAGE.progress](msg) {
      listeners.progress(msg.step);
    },
    [PAGE.sample](msg) {
      // One at a time, in order, each stored before the next is sent.
      relayed = relayed.then(() => keyed('samples', { samples: [msg.sample] }));
      relayed.catch((e) => listeners.failed(e));
    },
    async [PAGE.autoCheck](msg) {
      await relayed.catch(() => {});
      let reply;
      try {
        const d = await keyed('auto-check', { reps_done: msg.reps_done });
        autoStop = d.stop ?? null;
        reply = { more: d.more, reason: d.reason };
      } catch (e) {
        reply = { more: false, reason: `auto-check failed: ${e.message}` };
      }
      deliver({ type: EXTENSION.autoDecision, request_id: msg.request_id, ...reply });
    },
    async [PAGE.done](msg) {
      const reason = msg.auto_reason ? `auto: ${msg.auto_reason}` : null;
      finish(RUN_STATUS.COMPLETE, reason).then(listeners.finished, listeners.failed);
    },
    async [PAGE.failed](msg) {
      finish(RUN_STATUS.FAILED, msg.error).then(listeners.finished, listeners.failed);
    },
  };

  return {
    /** bench.js's post(): `onReply` gets the answers, as the extension would send them. */
    post(message, onReply) {
      deliver = onReply;
      if (Object.hasOwn(handlers, message?.type)) handlers[message.type](message);
    },
    offer: () => call('offer'),
    /** Run pressed (or the offer starts by itself). */
    start: () => wantStart(),
    on(event, fn) {
      listeners[event] = fn;
    },
  };
}

export const hostChannel = token ? createHostChannel() : null;
