// The registered workload modules as arms to tick, in the popup and on the Options page.
// The host lists them at `hello` (`unobserved workload add`); the last list is kept in
// storage, so a page draws at once and again when the background brings a newer one.
import { api } from './api.js';
import { MESSAGE } from './messages.js';

/** The last list the host gave: `[{ name, sha256, bytes }]`. */
export async function knownModules() {
  return (await api.storage.local.get('registeredModules')).registeredModules ?? [];
}

/** Asks the background for the host's list now (it keeps it for `knownModules`). */
export async function refreshModules() {
  const reply = await api.runtime.sendMessage({ type: MESSAGE.registeredModules });
  return reply?.ok ? reply.modules : knownModules();
}

/**
 * One checkbox per module in the fieldset `box` (hidden when there are none), ticked
 * when its name is in `ticked`; `onChange(names)` gets the ticked names after a change.
 */
export function drawModuleChoices(box, modules, ticked, onChange = () => {}) {
  box.querySelectorAll('label').forEach((l) => l.remove());
  box.hidden = modules.length === 0;
  for (const m of modules) {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.name = box.id;
    input.value = m.name;
    input.checked = ticked.includes(m.name);
    input.addEventListener('change', () => onChange(tickedIn(box)));
    label.append(input, ` ${m.name}`);
    box.append(label);
  }
}

/** The names ticked in `box`. */
export function tickedIn(box) {
  return [...box.querySelectorAll('input:checked')].map((i) => i.value);
}
