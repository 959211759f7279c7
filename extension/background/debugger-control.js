// The positive control: the extension attaches its own debugger to the benchmark tab
// and enables the Network domain, as automation clients do, so the user can see
// what observation does to the numbers in their own browser. Chromium family only.
import { api } from '../lib/api.js';

const PROTOCOL_VERSION = '1.3';

export function controlAvailable() {
  return Boolean(api.debugger);
}

/** Whether any debugger (ours, DevTools, or an automation client) is attached to the tab. */
export async function debuggerAttached(tabId) {
  if (!api.debugger?.getTargets) return null;
  try {
    const targets = await api.debugger.getTargets();
    const t = targets.find((x) => x.tabId === tabId);
    return t ? Boolean(t.attached) : null;
  } catch {
    return null; // no permission
  }
}

// What makes the difference (measured on Chromium 156, 32 MiB bodies, see docs/positive-control.md):
// with the Network domain enabled, Chromium copies a typed-array request body into the
// `postData` of Network.requestWillBeSent whenever the body fits under maxPostDataSize,
// and an unset (or 0) maxPostDataSize means no limit. That copy costs ~13x for
// Uint8Array and ArrayBuffer; Blob bodies are not inlined and do not slow down. A bare
// attach, Runtime.enable or Page.enable cost nothing measurable. So the control enables
// Network with default parameters, as automation clients do.
export async function attach(tabId) {
  await api.debugger.attach({ tabId }, PROTOCOL_VERSION);
  await api.debugger.sendCommand({ tabId }, 'Network.enable', {});
}

export async function detach(tabId) {
  await api.debugger.detach({ tabId });
}
