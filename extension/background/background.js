// Background entry point: the Chromium service worker and the Firefox event page.
import { api } from '../lib/api.js';
import { WELCOME_PAGE } from '../lib/defaults.js';
import { BENCH_PORT } from '../lib/page-protocol.js';
import { describeBrowser } from '../lib/environment.js';
import { connectHost } from './native-port.js';
import { startRun, attachBenchPort, isRunning, recoverOrphanedRun } from './run-controller.js';
import { onMessage } from './handlers.js';

// `unobserved run` leaves a job for the host to offer at hello. Ask once when the
// browser starts or the extension is installed; in an everyday profile the answer is
// "no job" and the connection closes at once.
async function checkForJob(firstInstall = false) {
  if (isRunning()) return;
  let host;
  try {
    const env = await describeBrowser(api);
    const [h, hello] = await connectHost(api.runtime.getManifest().version, env.browser);
    host = h;
    if (!hello.job) {
      host.disconnect();
      if (firstInstall) await welcome();
      return;
    }
    const { job } = hello;
    await startRun({ plan: job.plan, source: 'job', runId: job.run_id, afterRun: job.close_tab ? 'close' : 'summary', sinkUrl: job.sink_url ?? '', connection: [host, hello], env });
  } catch (e) {
    // No host installed is normal here; the popup explains it when the user clicks Run.
    console.info(`Unobserved: no job from the native host (${e.message})`);
    host?.disconnect();
    if (firstInstall) await welcome();
  }
}

/** A person's first install (never a run `unobserved run` started): how to begin. */
async function welcome() {
  await api.tabs.create({ url: api.runtime.getURL(WELCOME_PAGE) });
}

// Runs every time the background starts: a run left "running" by a background that
// died is recorded as incomplete instead of waiting forever.
recoverOrphanedRun();

api.runtime.onInstalled.addListener((details) => checkForJob(details?.reason === 'install'));
api.runtime.onStartup.addListener(() => checkForJob());

api.runtime.onConnect.addListener((port) => {
  if (port.name === BENCH_PORT) attachBenchPort(port);
  else port.disconnect();
});

// The popup and the welcome page ask; one handler per message type answers.
api.runtime.onMessage.addListener(onMessage);
