// The page's channel to the host when `unobserved serve` (or `unobserved run --browser
// webkit`) served it: no extension, so the page protocol's messages go to the host over
// HTTP, through the sink, with the session token from the URL's fragment (PROTOCOL.md,
// "Page ↔ host over HTTP"). bench.js posts to this as it posts to the extension; the
// page session (lib/page-session.js) turns its messages into the host's, as the
// background does over the native port. The host decides what is stored.
import { createPageSession } from '../lib/page-session.js';
import { HOST_REPLY } from '../lib/names.js';

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
  if (!res.ok || reply?.type === HOST_REPLY.error) {
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

/** serve's HTTP as the page session's transport: `runs/<run id>/<message>`, with the run's key. */
function httpTransport(started) {
  return {
    async send(type, fields) {
      const run = await started;
      return call(`runs/${run.run_id}/${type}`, { key: run.run_key, ...fields });
    },
  };
}

function createHostChannel() {
  let wantStart = null;
  const wanted = new Promise((resolve) => (wantStart = resolve));
  const listeners = { progress: () => {}, finished: () => {}, failed: () => {} };
  let starting = null;
  // The run `start` recorded, once Run is pressed (or the offer starts by itself).
  const started = wanted.then(async () => call('start', { hints: await clientHints() }));

  const session = createPageSession(httpTransport(started), {
    /** The plan once, when the run has started; later asks get nothing. */
    async plan() {
      if (starting) return null;
      starting = started;
      try {
        const run = await started;
        return { plan: run.plan, arms: run.arms, upload_urls: run.upload_urls, run_id: run.run_id, workload_key: null, take_turns: run.take_turns === true };
      } catch (e) {
        listeners.failed(e);
        return null;
      }
    },
    setCondition() {
      throw new Error('a page served by `unobserved serve` cannot attach a debugger');
    },
    newPage() {
      throw new Error('a page of `unobserved serve` runs every block in itself');
    },
    progress: (step) => listeners.progress(step),
    async ended({ reply, error }) {
      if (error) listeners.failed(error);
      else listeners.finished({ ...(await started), analysis: reply.analysis ?? null });
    },
  });

  return {
    /** bench.js's post(): `onReply` gets the answers, as the extension would send them. */
    post(message, onReply) {
      return session.handle(message, onReply);
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
