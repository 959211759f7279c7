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

/** The names of every module drawn in `box`, ticked or not. */
export function drawnIn(box) {
  return [...box.querySelectorAll('input')].map((i) => i.value);
}

/**
 * The names to tick when a page that is already open draws `modules` again: the
 * registered list changed, or the stored ticks went from `before` to `after` (a tick in
 * the popup). A module whose stored tick changed shows the stored one, the newest choice;
 * any other module the page drew (`drawn`) keeps its box (`ticked`), so an unsaved change
 * survives; a module new to the page shows its stored tick.
 */
export function ticksToRedraw({ modules, drawn, ticked, before, after }) {
  const has = (list, name) => Array.isArray(list) && list.includes(name);
  return modules
    .map((m) => m.name)
    .filter((name) => {
      if (has(before, name) !== has(after, name)) return has(after, name);
      return drawn.includes(name) ? ticked.includes(name) : has(after, name);
    });
}

/**
 * The ticks a page's Save stores: its own boxes for the modules it drew, and the stored
 * ticks of every module it did not draw (registered after it last drew, or ticked in the
 * popup meanwhile), which it has no say over and must not drop.
 */
export function ticksToSave({ stored, drawn, ticked }) {
  const kept = (Array.isArray(stored) ? stored : []).filter((name) => !drawn.includes(name) || ticked.includes(name));
  return [...kept, ...ticked.filter((name) => !kept.includes(name))];
}
