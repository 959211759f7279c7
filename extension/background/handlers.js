// The background's answers to the extension's own pages, one per MESSAGE.
import { api } from '../lib/api.js';
import { DEFAULT_OPTIONS, OPTION_PROBLEM, planFromOptions, tickedModules, validateOptions } from '../lib/defaults.js';
import { knownModules } from '../lib/module-choices.js';
import { describeBrowser, isGecko } from '../lib/environment.js';
import { MESSAGE } from '../lib/messages.js';
import { connectHost } from './native-port.js';
import { isRunning, startRun } from './run-controller.js';
import { controlAvailable } from './debugger-control.js';
import { NOTE, noteText, problemText } from '../lib/format.js';

async function startFromPopup(msg) {
  const { options } = await api.storage.local.get('options');
  // A module ticked once and removed since (`workload remove`) is not asked for.
  const opts = { ...DEFAULT_OPTIONS, ...options };
  opts.modules = tickedModules(opts.modules, await knownModules());
  // A plain sink off loopback stored before Options refused it in Firefox: refused here too.
  const upgraded = validateOptions(opts, { gecko: isGecko(api) }).find((p) => p.kind === OPTION_PROBLEM.plainSinkUpgraded);
  if (upgraded) throw new Error(problemText(upgraded));
  if (msg.control && !controlAvailable()) throw new Error(noteText(NOTE.controlUnavailable));
  const plan = { ...planFromOptions(opts), control: Boolean(msg.control) };
  await startRun({ plan, source: 'popup', sinkUrl: opts.sinkUrl, afterRun: opts.afterRun });
  return { ok: true };
}

async function checkHost() {
  // A second host process during a measurement would compete with it.
  if (isRunning()) throw new Error(noteText(NOTE.checkWhileRunning));
  const env = await describeBrowser(api);
  const [host, hello] = await connectHost(api.runtime.getManifest().version, env.browser);
  host.disconnect();
  return { ok: true, version: hello.version, sink: hello.sink.page_url };
}

/** The host's registered modules, asked afresh (connectHost keeps them); during a run, the last list. */
async function registeredModules() {
  if (isRunning()) return { ok: true, modules: await knownModules() };
  const env = await describeBrowser(api);
  const [host, hello] = await connectHost(api.runtime.getManifest().version, env.browser);
  host.disconnect();
  return { ok: true, modules: hello.modules ?? [] };
}

export const HANDLERS = Object.freeze({
  [MESSAGE.startRun]: startFromPopup,
  [MESSAGE.checkHost]: checkHost,
  [MESSAGE.registeredModules]: registeredModules,
});

/** runtime.onMessage listener: only this extension's pages, only known types. */
export function onMessage(msg, sender, sendResponse) {
  const handler = sender.id === api.runtime.id ? HANDLERS[msg?.type] : undefined;
  if (!handler) return false;
  handler(msg).then(sendResponse, (e) => sendResponse({ ok: false, error: String(e?.message ?? e), failure: e?.failure ?? null }));
  return true;
}
