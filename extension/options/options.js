import { api } from '../lib/api.js';
import { sinkHostPermission } from '../lib/sink-url.js';
import { AFTER_RUN, BODY_KINDS, DEFAULT_OPTIONS, LIMITS, MIB, TRANSPORTS, problemText, tickedModules, validateOptions } from '../lib/defaults.js';
import { drawModuleChoices, knownModules, refreshModules, tickedIn } from '../lib/module-choices.js';

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

function read() {
  return {
    sizeMiB: Number($('sizeMiB').value),
    reps: Number($('reps').value),
    auto: $('auto').checked,
    maxSeconds: Number($('maxSeconds').value),
    warmup: Number($('warmup').value),
    bodies: [...$('bodies').querySelectorAll('input:checked')].map((i) => i.value),
    modules: tickedIn($('modules')),
    transports: [...$('transports').querySelectorAll('input:checked')].map((i) => i.value),
    sinkUrl: $('sinkUrl').value.trim(),
    afterRun: $('afterRun').querySelector('input:checked')?.value,
    load: $('load').checked,
  };
}

async function main() {
  const { options } = await api.storage.local.get('options');
  bound();
  fill({ ...DEFAULT_OPTIONS, ...options });
  $('sizeMiB').focus();
  // The registered modules: the last list at once, the host's own when it answers.
  const drawModules = (modules) => drawModuleChoices($('modules'), modules, tickedModules({ ...DEFAULT_OPTIONS, ...options }.modules, modules));
  drawModules(await knownModules());
  refreshModules().then(drawModules, () => {});
  $('form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const o = read();
    const errors = validateOptions(o);
    $('errors').textContent = errors.map(problemText).join(' ');
    $('saved').textContent = '';
    if (errors.length) return;
    if (o.sinkUrl) {
      // Asked only now, and only for this one host.
      const origin = sinkHostPermission(o.sinkUrl);
      const granted = await api.permissions.request({ origins: [origin] });
      if (!granted) {
        $('errors').textContent = `Unobserved needs permission to upload to ${new URL(o.sinkUrl).origin}; it was not granted, so nothing was saved.`;
        return;
      }
    }
    await api.storage.local.set({ options: o });
    $('saved').textContent = 'Saved. The next run uses these settings.';
  });
  $('reset').addEventListener('click', () => {
    fill(DEFAULT_OPTIONS);
    $('errors').textContent = '';
    // Nothing is stored until Save: say so, or a user closes the tab thinking it was.
    $('saved').textContent = 'Defaults filled in. Click Save to keep them.';
  });
}

main();
