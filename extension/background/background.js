// Background entry point: the Chromium service worker and the Firefox event page.
import { api } from '../lib/api.js';
import { BENCH_PORT, planFromOptions, DEFAULT_OPTIONS } from '../lib/defaults.js';
import { describeBrowser } from '../lib/environment.js';
import { connectHost } from './native-port.js';
import { startRun, attachBenchPort, isRunning, recoverOrphanedRun } from './run-controller.js';
import { controlAvailable, controlUnavailableReason } from './debugger-control.js';

// `unobserved run` leaves a job for the host to offer at hello. Ask once when the
// browser starts or the extension is installed; in an everyday profile the answer is
// "no job" and the connection closes at once.
async function checkForJob() {
  if (isRunning()) return;
  let host;
  try {
    const env = await describeBrowser(api);
    const [h, hello] = await connectHost(api.runtime.getManifest().version, env.browser);
    host = h;
    if (!hello.job) {
      host.disconnect();
      return;
    }
    const { job } = hello;
    await startRun({ plan: job.plan, source: 'job', runId: job.run_id, closeTab: job.close_tab, sinkUrl: job.sink_url ?? '', connection: [host, hello], env });
  } catch (e) {
    // No host installed is normal here; the popup explains it when the user clicks Run.
    console.info(`Unobserved: no job from the native host (${e.message})`);
    host?.disconnect();
  }
}

// Runs every time the background starts: a run left "running" by a background that
// died is recorded as incomplete instead of waiting forever.
recoverOrphanedRun();

api.runtime.onInstalled.addListener(checkForJob);
api.runtime.onStartup.addListener(checkForJob);

api.runtime.onConnect.addListener((port) => {
  if (port.name === BENCH_PORT) attachBenchPort(port);
  else port.disconnect();
});

// The popup asks for a run; the reply says whether it started.
api.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (sender.id !== api.runtime.id || msg?.type !== 'start-run') return false;
  (async () => {
    const { options } = await api.storage.local.get('options');
    const opts = { ...DEFAULT_OPTIONS, ...options };
    try {
      if (msg.control && !controlAvailable()) throw new Error(`Control not available: ${controlUnavailableReason()}`);
      const plan = { ...planFromOptions(opts), control: Boolean(msg.control) };
      await startRun({ plan, source: 'popup', sinkUrl: opts.sinkUrl, closeTab: true });
      sendResponse({ ok: true });
    } catch (e) {
      sendResponse({ ok: false, error: String(e?.message ?? e) });
    }
  })();
  return true;
});
