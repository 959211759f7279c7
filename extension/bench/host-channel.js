// The page's channel to the host when `unobserved serve` (or `unobserved run --browser
// webkit`) served it: no extension, so the page protocol's messages go to the host over
// HTTP, through the sink, with the session token from the URL's fragment (PROTOCOL.md,
// "Page ↔ host over HTTP"). bench.js posts to this as it posts to the extension; the
// page session (lib/page-session.js) turns its messages into the host's, as the
// background does over the native port. The host decides what is stored.
import { createPageSession } from '../lib/page-session.js';
import { HOST_REPLY, SERVE_MESSAGE } from '../lib/names.js';
import { NOTE, noteText } from '../lib/format.js';

const HEX32 = /^[0-9a-f]{32}$/;

/** Served by `serve`: its own page, with the session token in the fragment. */
const token = location.pathname.endsWith('/serve.html') && HEX32.test(location.hash.slice(1)) ? location.hash.slice(1) : null;

/**
 * The load token serve put in this copy of the page as it served it (a page per block):
 * sent with every message, so the host knows which of its pages a sample ran in.
 */
const load = (() => {
  const content = globalThis.document?.querySelector('meta[name="unobserved-load"]')?.content ?? '';
  return HEX32.test(content) ? content : null;
})();

/** Where a page that handed its run to a fresh one leaves the run for it (this tab only). */
const RESUME_KEY = 'unobserved-resume';

/** The run this page takes over from the page before it, once: null for a first page. */
function takeResume() {
  try {
    const raw = globalThis.sessionStorage?.getItem(RESUME_KEY);
    globalThis.sessionStorage?.removeItem(RESUME_KEY);
    const r = raw ? JSON.parse(raw) : null;
    return r?.token === token && HEX32.test(r.run_key ?? '') ? r : null;
  } catch {
    return null;
  }
}

async function call(path, body) {
  const res = await fetch(`/serve/${token}/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
  });
  const reply = await res.json().catch(() => null);
  if (!res.ok || reply?.type === HOST_REPLY.error) {
    const error = new Error(reply?.message ?? noteText(NOTE.hostStatus, res));
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

/** serve's HTTP as the page session's transport: `runs/<run id>/<message>`, with the run's key and this page's load token. */
function httpTransport(started) {
  return {
    async send(type, fields) {
      const run = await started;
      return call(`runs/${run.run_id}/${type}`, { key: run.run_key, load, ...fields });
    },
  };
}

/**
 * The run this page measures: the one `start` recorded once Run is pressed (or the
 * offer starts by itself), or, in a fresh page of a later block, the one it takes over
 * (`ready`, answered with the plan and `resume`).
 */
function startedRun(wanted, resume) {
  if (resume) return call(`runs/${resume.run_id}/${SERVE_MESSAGE.ready}`, { key: resume.run_key, load }).then((run) => ({ ...run, run_key: resume.run_key }));
  return wanted.then(async () => call('start', { hints: await clientHints(), load }));
}

function createHostChannel() {
  let wantStart = null;
  const wanted = new Promise((resolve) => (wantStart = resolve));
  const listeners = { progress: () => {}, finished: () => {}, failed: () => {} };
  let starting = null;
  const resume = takeResume();
  const started = startedRun(wanted, resume);
  const transport = httpTransport(started);

  const session = createPageSession(transport, {
    /** The plan once, when the run has started; later asks get nothing. */
    async plan() {
      if (starting) return null;
      starting = started;
      try {
        const run = await started;
        return { plan: run.plan, arms: run.arms, upload_urls: run.upload_urls, run_id: run.run_id, workload_key: null, take_turns: run.take_turns === true, fresh_pages: run.fresh_pages === true, resume: run.resume ?? null };
      } catch (e) {
        listeners.failed(e);
        return null;
      }
    },
    setCondition() {
      throw new Error(noteText(NOTE.serveNoDebugger));
    },
    /** The host grants a fresh page at `rep`; this page leaves the run to it, then reloads. */
    async newPage(rep) {
      const run = await started;
      await transport.send(SERVE_MESSAGE.newPage, { rep });
      globalThis.sessionStorage.setItem(RESUME_KEY, JSON.stringify({ token, run_id: run.run_id, run_key: run.run_key }));
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
    /** A fresh page of a later block: it goes on by itself. */
    resuming: resume !== null,
    /** Run pressed (or the offer starts by itself). */
    start: () => wantStart(),
    on(event, fn) {
      listeners[event] = fn;
    },
  };
}

export const hostChannel = token ? createHostChannel() : null;
