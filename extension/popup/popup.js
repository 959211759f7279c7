// The popup only reads state and asks the background to start; the run itself lives in
// the background and the benchmark tab, so closing the popup never stops it.
import { api } from '../lib/api.js';
import { NOTE, explainRunError, noteText, progressBar, progressText } from '../lib/format.js';
import { drawResult } from '../lib/result-view.js';
import { describeBrowser, isChromiumFamily } from '../lib/environment.js';
import { MESSAGE } from '../lib/messages.js';
import { POPUP_PHASE } from '../lib/names.js';
import { DEFAULT_OPTIONS, tickedModules } from '../lib/defaults.js';
import { drawModuleChoices, knownModules, refreshModules } from '../lib/module-choices.js';

const $ = (id) => document.getElementById(id);
/** `problem` is `{ error, failure }` (failure: a HOST_FAILURE kind, when the host is the cause). */
function showProblem(problem, browser) {
  const p = explainRunError(problem, browser);
  $('problem').hidden = false;
  $('problem-what').textContent = p.what;
  $('problem-fix').textContent = p.fix;
  $('problem-detail').textContent = p.detail;
}

function render(state, browser) {
  const running = state.phase === POPUP_PHASE.running;
  $('run').disabled = running;
  $('load').disabled = running;
  $('control').disabled = running || !controlPossible;
  $('run').textContent = running ? 'Running…' : 'Run';
  $('progress').hidden = !running;
  if (running) {
    const bar = progressBar(state);
    $('bar').max = bar.max;
    $('bar').value = bar.value;
    $('progress-text').textContent = progressText(state);
  }
  $('problem').hidden = true;
  if (state.phase === POPUP_PHASE.error) showProblem(state, state.browser || browser);
  // Every figure, verdict and reason comes from the host's one analysis of the stored run.
  drawResult($('result'), state);
}

// Chromium refuses `debugger` as an optional permission (it is dropped from the
// manifest), so the popup can offer the control only where the extension was installed
// with `debugger` required: the control build (`unobserved pack --with-control`) or the
// copy `unobserved run --control` loads. Firefox has no chrome.debugger at all.
let controlPossible = false;

/** The registered modules to tick; a tick is saved in the options at once, for the next Run. */
async function offerModules() {
  const draw = async (modules) => {
    const { options } = await api.storage.local.get('options');
    const ticked = tickedModules({ ...DEFAULT_OPTIONS, ...options }.modules, modules);
    drawModuleChoices($('modules'), modules, ticked, async (names) => {
      const now = (await api.storage.local.get('options')).options;
      await api.storage.local.set({ options: { ...DEFAULT_OPTIONS, ...now, modules: names } });
    });
  };
  const known = await knownModules();
  await draw(known);
  // The background keeps the host's list as it fetches it: compare with what was drawn.
  const fresh = await refreshModules().catch(() => null);
  const names = (list) => list.map((m) => m.name).join('\n');
  if (fresh && names(fresh) !== names(known)) await draw(fresh);
}

/**
 * The load tick box: the stored options' `load`, the same setting as the options page's
 * box. Ticking it stores it at once, so the next Run (and Options) use it.
 */
async function loadBox() {
  const options = async () => ({ ...DEFAULT_OPTIONS, ...(await api.storage.local.get('options')).options });
  $('load').checked = (await options()).load === true;
  $('load').addEventListener('change', async () => {
    await api.storage.local.set({ options: { ...(await options()), load: $('load').checked } });
  });
}

async function main() {
  // The benchmark tab shows this same view as its summary after a run.
  if (new URLSearchParams(location.search).get('view') === 'tab') document.body.classList.add('tab');
  const env = await describeBrowser(api);
  const required = api.runtime.getManifest().permissions ?? [];
  controlPossible = isChromiumFamily(env.browser) && required.includes('debugger');
  const read = async () => (await api.storage.local.get('runState')).runState ?? { phase: POPUP_PHASE.idle };
  render(await read(), env.browser);
  api.storage.onChanged.addListener(async (changes) => {
    if (changes.runState) render(changes.runState.newValue ?? { phase: POPUP_PHASE.idle }, env.browser);
  });
  const start = async (control) => {
    $('run').disabled = true;
    const reply = await api.runtime.sendMessage({ type: MESSAGE.startRun, control });
    if (!reply?.ok) {
      showProblem(reply ?? { error: noteText(NOTE.noBackgroundAnswer) }, env.browser);
      $('run').disabled = false;
    }
  };
  $('run').addEventListener('click', () => start(false).catch((e) => showProblem({ error: String(e?.message ?? e) }, env.browser)));
  if (!controlPossible) {
    // Never a button that does nothing: say where the control is available instead.
    $('control').hidden = true;
    $('control-note').hidden = false;
    $('control-note').textContent = noteText(isChromiumFamily(env.browser) ? NOTE.controlNeedsPermission : NOTE.controlNeedsChromium);
    $('grant').parentElement.hidden = true;
  }
  $('control').addEventListener('click', () => start(true).catch((e) => showProblem({ error: String(e?.message ?? e) }, env.browser)));
  // The control build already holds the permission: checking for attached debuggers
  // needs no further grant.
  $('grant').addEventListener('click', (e) => {
    e.preventDefault();
    $('grant-note').hidden = false;
    $('grant-note').textContent = noteText(NOTE.debuggerCheck);
  });
  if (new URLSearchParams(location.search).get('view') !== 'tab') offerModules().catch(() => {});
  await loadBox();
  $('options').addEventListener('click', (e) => {
    e.preventDefault();
    api.runtime.openOptionsPage();
  });
  // Keyboard users (Alt+Shift+U, then Enter) start on Run. Firefox's panel ignores
  // autofocus and may take the keyboard only after this script ran: focus again then.
  const focusRun = () => document.activeElement === document.body && !$('run').disabled && $('run').focus();
  focusRun();
  window.addEventListener('focus', focusRun, { once: true });
}

main().catch((e) => showProblem({ error: String(e?.message ?? e) }));
