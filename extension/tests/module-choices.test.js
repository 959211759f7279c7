// The Options page's registered-module boxes (issue 40 part 5): a page opened before
// `unobserved workload add` draws the new modules when it can learn of them, and its Save
// never drops a tick made in the popup meanwhile. The page itself runs here, over a small
// stand-in for its DOM and for the extension API (storage, the background's answer).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { settle, world } from './support/options-page.js';

const MINE = { name: 'mine', sha256: 'ab'.repeat(32), bytes: 10 };
const MINE2 = { name: 'mine2', sha256: '0c'.repeat(32), bytes: 20 };

// The extension API is read once, when lib/api.js is first imported: set it up first.
const w = world();
Object.assign(globalThis, { chrome: w.chrome, document: w.doc, window: w.win });
const { ticksToRedraw, ticksToSave } = await import('../lib/module-choices.js');

const boxes = (els) => els.modules.querySelectorAll('input').map((i) => [i.value, i.checked]);

test('an Options page open before `workload add` draws the new modules, the popup\'s tick shown, and its Save keeps it', async () => {
  await w.set({ registeredModules: [] });
  await import('../options/options.js');
  await settle();
  assert.deepEqual(boxes(w.els), [], 'no module registered yet');
  assert.equal(w.els.modules.hidden, true);
  // `unobserved workload add` twice; the popup, opened, asks the host and ticks the first.
  w.state.registered = [MINE, MINE2];
  await w.chrome.runtime.sendMessage({});
  await w.set({ options: { ...w.store.options, modules: ['mine'] } });
  await settle();
  assert.deepEqual(boxes(w.els), [['mine', true], ['mine2', false]], 'the open page drew both, the popup\'s tick shown');
  assert.equal(w.els.modules.hidden, false);
  // Tick the second here, Save: both are stored.
  w.els.modules.querySelectorAll('input')[1].checked = true;
  w.els.sizeMiB.value = '1';
  await w.els.form.fire('submit');
  assert.deepEqual(w.store.options.modules, ['mine', 'mine2']);
  // A module registered after the page last drew (it was not told): its popup tick survives a Save.
  w.state.registered = [MINE, MINE2, { ...MINE, name: 'mine3' }];
  w.store.options = { ...w.store.options, modules: ['mine', 'mine2', 'mine3'] };
  await w.els.form.fire('submit');
  assert.deepEqual(w.store.options.modules, ['mine', 'mine2', 'mine3'], 'Save dropped a tick for a module it did not show');
  // Shown again, the page asks the host and draws the third, ticked.
  await w.doc.fire('visibilitychange');
  await settle();
  assert.deepEqual(boxes(w.els), [['mine', true], ['mine2', true], ['mine3', true]]);
});

test('redrawn ticks: the newest stored change wins, an unsaved box survives, a new module shows its stored tick', () => {
  const modules = [MINE, MINE2, { ...MINE, name: 'mine3' }];
  const drawn = ['mine', 'mine2'];
  // The page unticked mine (unsaved) and ticked mine2 (unsaved); the popup then ticked mine3.
  assert.deepEqual(ticksToRedraw({ modules, drawn, ticked: ['mine2'], before: ['mine'], after: ['mine', 'mine3'] }), ['mine2', 'mine3']);
  // The popup unticked mine2, which the page shows ticked: the popup's is the newer choice.
  assert.deepEqual(ticksToRedraw({ modules, drawn, ticked: ['mine2'], before: ['mine2'], after: [] }), []);
  // A removed module is not drawn ticked.
  assert.deepEqual(ticksToRedraw({ modules: [MINE], drawn: [], ticked: [], before: ['gone'], after: ['gone', 'mine'] }), ['mine']);
});

test('saved ticks: the page decides for the modules it drew, the store for the rest', () => {
  assert.deepEqual(ticksToSave({ stored: ['mine', 'mine3'], drawn: ['mine', 'mine2'], ticked: ['mine2'] }), ['mine3', 'mine2']);
  assert.deepEqual(ticksToSave({ stored: undefined, drawn: [], ticked: [] }), []);
});
