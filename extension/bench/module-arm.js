// A workload module as an arm (docs/workloads.md, PROTOCOL.md "Workload modules"): the
// user's own upload code, imported from the local sink, given the run's bytes (which the
// host knows without asking the page: lib/module-bytes.js), where to send them, an abort
// signal and the rep, and timed from the call to its promise settling. What arrived is
// the sink's to judge; the page reports only what it sent, its time and its failure.
import { newUploadId } from '../lib/upload-id.js';

/** The module contract this page speaks: a module declares `export const unobserved = 1`. */
export const CONTRACT = 1;

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

/** Each module of the plan's arms, imported once: `{ run }` or `{ error }` by name. */
export async function loadModules(arms, { base, token, runId }) {
  const loaded = new Map();
  for (const { arm } of arms.filter(({ arm }) => arm.kind === 'module')) {
    if (loaded.has(arm.name)) continue;
    try {
      // Literal path: on an extension page (not the sink's origin) this file is absent.
      const { importModule } = await import('./module-import.js');
      const mod = await importModule(`${base}/module/${token}/${runId}/${encodeURIComponent(arm.name)}`);
      if (mod.unobserved !== CONTRACT) throw new Error(`it speaks contract ${mod.unobserved}; this page speaks ${CONTRACT} (export const unobserved = ${CONTRACT})`);
      if (typeof mod.default !== 'function') throw new Error('its default export is not a function (export default async function upload(ctx) {…})');
      loaded.set(arm.name, { run: mod.default });
    } catch (e) {
      loaded.set(arm.name, { error: `the module could not be loaded: ${e.name}: ${e.message}` });
    }
  }
  return loaded;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs one module upload; resolves with the sample's page side and when it began. Never rejects: a module
 * that throws, rejects, never settles (`timeoutMs`) or was refused by the page's policy
 * is a failure with its reason. `t0` is the page's clock at the call, for the marks of
 * the module's requests (lib/timing.js `watchRequests`).
 */
export async function runModule(loaded, { bytes, rep, routes, key, timeoutMs, blocked }) {
  const uploadId = routes.uploadId;
  const blob = new Blob([bytes]);
  const controller = new AbortController();
  const ctx = Object.freeze({ contract: CONTRACT, size: bytes.length, bytes, blob, rep, key, signal: controller.signal, url: routes.url, partUrl: routes.partUrl, tusEndpoint: routes.tusEndpoint });
  const before = blocked.length;
  let timer;
  const timedOut = new Promise((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`the module did not settle within ${timeoutMs / 1000} s`));
    }, timeoutMs);
  });
  const t0 = performance.now();
  let error = loaded.error ?? null;
  let failure = error ? { kind: 'not-loaded' } : null;
  if (!error) {
    try {
      await Promise.race([loaded.run(ctx), timedOut]);
    } catch (e) {
      error = `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
      failure = { kind: controller.signal.aborted ? 'timed-out' : 'threw' };
    }
  }
  const pageMs = performance.now() - t0;
  clearTimeout(timer);
  // A refused request's report arrives a moment after the request failed.
  if (error && blocked.length === before) await sleep(50);
  const refused = blocked.slice(before);
  if (refused.length > 0) {
    const { directive, url } = refused[0];
    failure = { kind: 'blocked', directive, url };
    error = `blocked by the page's Content-Security-Policy (${directive}): ${url}; a module may reach only the run's sink (${error ?? 'the module did not fail'})`;
  }
  const sample = {
    upload_id: uploadId,
    bytes_sent: bytes.length,
    // The host knows the bytes it gave the module; the page does not vouch for them.
    sha256_sent: '',
    page_ms: pageMs,
    status: error ? 'error' : 'ok',
    error,
    module_failure: failure,
  };
  return { sample, t0 };
}

/** A fresh upload id and its routes, for one module upload. */
export function newModuleUpload(sink) {
  const uploadId = newUploadId();
  return { uploadId, ...routesFor(sink, uploadId) };
}
