import { api } from '../lib/api.js';
import { isGecko } from '../lib/environment.js';
import { NOTE, noteText, problemText } from '../lib/format.js';
import { sinkHostPermission } from '../lib/sink-url.js';
import { AFTER_RUN, BODY_KINDS, DEFAULT_OPTIONS, LIMITS, MIB, TRANSPORTS, validateOptions } from '../lib/defaults.js';
import { drawModuleChoices, drawnIn, knownModules, refreshModules, tickedIn, ticksToRedraw, ticksToSave } from '../lib/module-choices.js';
import { settingToRedraw, settingToSave } from '../lib/shared-setting.js';

const $ = (id) => document.getElementById(id);

/** The number inputs' own bounds: the limits validateOptions (and the host) apply. */
function bound() {
  $('sizeMiB').min = LIMITS.size_bytes.min / MIB;
  $('sizeMiB').max = LIMITS.size_bytes.max / MIB;
  for (const k of ['reps', 'warmup']) [$(k).min, $(k).max] = [LIMITS[k].min, LIMITS[k].max];
  [$('maxSeconds').min, $('maxSeconds').max] = [LIMITS.auto_max_seconds.min, LIMITS.auto_max_seconds.max];
}

/** One checkbox or radio button per choice, in the fieldset `box`, `value: words`. */
function choices(box, type, entries, isChecked) {
  box.querySelectorAll('label').forEach((l) => l.remove());
  for (const [value, words] of entries) {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = type;
    input.name = box.id;
    input.value = value;
    input.checked = isChecked(value);
    label.append(input, ` ${words}`);
    box.append(label);
  }
}

function fill(o) {
  for (const k of ['sizeMiB', 'reps', 'maxSeconds', 'warmup', 'sinkUrl']) $(k).value = o[k];
  $('auto').checked = o.auto;
  $('load').checked = o.load === true;
  choices($('bodies'), 'checkbox', BODY_KINDS.map((kind) => [kind, kind]), (kind) => o.bodies.includes(kind));
  const transports = o.transports ?? DEFAULT_OPTIONS.transports;
  choices($('transports'), 'checkbox', Object.entries(TRANSPORTS).map(([t, words]) => [t, `${t}: ${words}`]), (t) => transports.includes(t));
  choices($('afterRun'), 'radio', Object.entries(AFTER_RUN), (value) => o.afterRun === value);
}

/** What the form says; `modules` (the ticks to store) is the caller's: see ticksToSave. */
function read(modules) {
  return {
    sizeMiB: Number($('sizeMiB').value),
    reps: Number($('reps').value),
    auto: $('auto').checked,
    maxSeconds: Number($('maxSeconds').value),
    warmup: Number($('warmup').value),
    bodies: [...$('bodies').querySelectorAll('input:checked')].map((i) => i.value),
    modules,
    transports: [...$('transports').querySelectorAll('input:checked')].map((i) => i.value),
    sinkUrl: $('sinkUrl').value.trim(),
    afterRun: $('afterRun').querySelector('input:checked')?.value,
    load: $('load').checked,
  };
}

/** The stored options, over the defaults. */
const stored = async () => ({ ...DEFAULT_OPTIONS, ...(await api.storage.local.get('options')).options });

/** The stored load tick this page last drew (see shared-setting.js); Defaults does not change it. */
let loadDrawn = false;
const storedLoad = async () => (await stored()).load === true;

/**
 * The CPU-load box, which the popup ticks too: drawn again when the stored tick changes
 * and when the page is shown or focused again (a change it was not told of), keeping a
 * change made here and not yet saved.
 */
function watchLoad() {
  const redraw = async () => {
    const now = await storedLoad();
    $('load').checked = settingToRedraw({ shown: $('load').checked, drawn: loadDrawn, stored: now });
    loadDrawn = now;
  };
  api.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && changes.options) redraw();
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') redraw();
  });
  window.addEventListener('focus', redraw);
}

/**
 * The registered modules, drawn again whenever they can change under this open page: the
 * host's list (`unobserved workload add`) as the background stores it, a tick made in the
 * popup, and the host asked afresh each time the page is shown or focused again.
 */
async function watchModules() {
  const box = $('modules');
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const draw = (modules, before, after) => {
    const ticked = ticksToRedraw({ modules, drawn: drawnIn(box), ticked: tickedIn(box), before, after });
    // Unchanged: keep the boxes (and the keyboard focus on one).
    if (same(modules.map((m) => m.name), drawnIn(box)) && same(ticked, tickedIn(box))) return;
    drawModuleChoices(box, modules, ticked);
  };
  const drawStored = async (modules) => {
    const ticks = (await stored()).modules;
    draw(modules, ticks, ticks);
  };
  api.storage.onChanged.addListener(async (changes, area) => {
    if (area !== 'local') return;
    if (changes.registeredModules) await drawStored(changes.registeredModules.newValue ?? []);
    if (changes.options) draw(await knownModules(), changes.options.oldValue?.modules, changes.options.newValue?.modules);
  });
  const ask = () => refreshModules().then(drawStored, () => {});
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') ask();
  });
  window.addEventListener('focus', ask);
  // The last list at once, the host's own when it answers.
  await drawStored(await knownModules());
  ask();
}

async function main() {
  bound();
  const first = await stored();
  fill(first);
  loadDrawn = first.load === true;
  $('sizeMiB').focus();
  watchLoad();
  await watchModules();
  $('form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const box = $('modules');
    const now = await stored();
    const o = read(ticksToSave({ stored: now.modules, drawn: drawnIn(box), ticked: tickedIn(box) }));
    o.load = settingToSave({ shown: o.load, drawn: loadDrawn, stored: now.load === true });
    const errors = validateOptions(o, { gecko: isGecko(api) });
    $('errors').textContent = errors.map(problemText).join(' ');
    $('saved').textContent = '';
    if (errors.length) return;
    if (o.sinkUrl) {
      // Asked only now, and only for this one host.
      const origin = sinkHostPermission(o.sinkUrl);
      const granted = await api.permissions.request({ origins: [origin] });
      if (!granted) {
        $('errors').textContent = noteText(NOTE.sinkNotGranted, { origin: new URL(o.sinkUrl).origin });
        return;
      }
    }
    loadDrawn = o.load;
    await api.storage.local.set({ options: o });
    $('load').checked = o.load;
    $('saved').textContent = noteText(NOTE.saved);
  });
  $('reset').addEventListener('click', () => {
    fill(DEFAULT_OPTIONS);
    $('errors').textContent = '';
    // Nothing is stored until Save: say so, or a user closes the tab thinking it was.
    $('saved').textContent = noteText(NOTE.defaultsFilled);
  });
}

main();
