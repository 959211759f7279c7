// A workload module as an arm (docs/workloads.md, PROTOCOL.md "Workload modules"): the
// user's own upload code, imported from the local sink, given the run's bytes (which the
// host knows without asking the page: lib/module-bytes.js), where to send them, an abort
// signal and the rep, and timed from the call to its promise settling. What arrived is
// the sink's to judge; the page reports only what it sent, its time and its failure.
import { MODULE_CONTRACT, MODULE_FAILURE, NOT_LOADED, SAMPLE_ERROR, SAMPLE_STATUS } from '../lib/names.js';
import { newUploadId } from '../lib/upload-id.js';

/** The module contract this page speaks: a module declares `export const unobserved = 1`. */
export const CONTRACT = MODULE_CONTRACT;

/**
 * The page's Content-Security-Policy once it runs modules: requests may go to the run's
 * own sinks only (this origin and the plan's TLS listeners), and nothing else loads
 * from anywhere else. Added as a <meta> before the first module is imported; a policy
 * can be added to a page, never taken away.
 */
export function policyFor(uploadUrls, origin) {
  const sinks = [...new Set(Object.values(uploadUrls).map((u) => new URL(u).origin))].filter((o) => o !== origin);
  const connect = ["'self'", ...sinks].join(' ');
  return `default-src 'self' 'unsafe-inline' blob: data:; connect-src ${connect}; form-action 'none'; base-uri 'none'`;
}

export function installPolicy(doc, policy) {
  const meta = doc.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = policy;
  doc.head.prepend(meta);
}

/** Requests the policy refused, as the browser reports them. */
export function violations(doc) {
  const seen = [];
  doc.addEventListener('securitypolicyviolation', (e) => seen.push({ directive: e.effectiveDirective ?? e.violatedDirective, url: e.blockedURI }));
  return seen;
}

/** The routes of one module upload on the local sink. */
export function routesFor({ base, token, runId }, uploadId) {
  const root = `${base}/m/${token}/${runId}/${uploadId}`;
  return {
    url: root,
    partUrl: (offset) => {
      if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`a part's offset is a byte count, not ${offset}`);
      return `${root}/${offset}`;
    },
    tusEndpoint: `${base}/tus/${token}/${runId}/${uploadId}`,
  };
}

/** An exception's own words, `Name: message`, for a sample's `rejection`. */
const ownWords = (e) => `${e?.name ?? 'Error'}: ${e?.message ?? e}`;

/** Each module of the plan's arms, imported once: `{ run }`, or `{ failure, words }` (a `not-loaded` failure, typed) by name. */
export async function loadModules(arms, { base, token, runId }) {
  const loaded = new Map();
  for (const { arm } of arms.filter(({ arm }) => arm.kind === 'module')) {
    if (loaded.has(arm.name)) continue;
    try {
      // Literal path: on an extension page (not the sink's origin) this file is absent.
      const { importModule } = await import('./module-import.js');
      const mod = await importModule(`${base}/module/${token}/${runId}/${encodeURIComponent(arm.name)}`);
      const cause = mod.unobserved !== CONTRACT ? NOT_LOADED.otherContract : typeof mod.default !== 'function' ? NOT_LOADED.noDefaultFunction : null;
      loaded.set(arm.name, cause ? { failure: { kind: MODULE_FAILURE.notLoaded, cause } } : { run: mod.default });
    } catch (e) {
      loaded.set(arm.name, { failure: { kind: MODULE_FAILURE.notLoaded, cause: NOT_LOADED.importFailed }, words: ownWords(e) });
    }
  }
  return loaded;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs one module upload; resolves with the sample's page side and when it began. Never rejects: a module
 * that throws, rejects, never settles (`timeoutMs`) or was refused by the page's policy
 * is a `module-failed` sample with its `module_failure` (kind and numbers) and, when it
 * threw, its own words in `rejection`. `t0` is the page's clock at the call, for the marks
 * of the module's requests (lib/timing.js `watchRequests`).
 */
export async function runModule(loaded, { bytes, rep, routes, key, timeoutMs, blocked }) {
  const blob = new Blob([bytes]);
  const controller = new AbortController();
  const ctx = Object.freeze({ contract: CONTRACT, size: bytes.length, bytes, blob, rep, key, signal: controller.signal, url: routes.url, partUrl: routes.partUrl, tusEndpoint: routes.tusEndpoint });
  const before = blocked.length;
  let timer;
  const timedOut = new Promise((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new DOMException(`the module did not settle within ${timeoutMs} ms`, 'TimeoutError'));
    }, timeoutMs);
  });
  const t0 = performance.now();
  let { failure = null, words = null } = loaded;
  if (!failure) {
    try {
      await Promise.race([loaded.run(ctx), timedOut]);
    } catch (e) {
      const late = controller.signal.aborted;
      failure = late ? { kind: MODULE_FAILURE.timedOut, timeout_ms: timeoutMs } : { kind: MODULE_FAILURE.threw };
      words = late ? null : ownWords(e);
    }
  }
  const pageMs = performance.now() - t0;
  clearTimeout(timer);
  // A refused request's report arrives a moment after the request failed.
  if (failure && blocked.length === before) await sleep(50);
  const refused = blocked.slice(before);
  if (refused.length > 0) {
    const { directive, url } = refused[0];
    failure = { kind: MODULE_FAILURE.blocked, directive, url };
  }
  const sample = {
    upload_id: routes.uploadId,
    bytes_sent: bytes.length,
    // The host knows the bytes it gave the module; the page does not vouch for them.
    sha256_sent: '',
    page_ms: pageMs,
    status: failure ? SAMPLE_STATUS.error : SAMPLE_STATUS.ok,
    error: failure ? SAMPLE_ERROR.moduleFailed : null,
    module_failure: failure,
    ...(failure && words ? { rejection: words } : {}),
  };
  return { sample, t0 };
}

/** A fresh upload id and its routes, for one module upload. */
export function newModuleUpload(sink) {
  const uploadId = newUploadId();
  return { uploadId, ...routesFor(sink, uploadId) };
}
