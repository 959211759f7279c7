// The Options page's CPU-load box (issue 36 part 2, issue 40 part 5): the popup ticks the
// same stored setting (`options.load`, `--load none,cpu`), so a page that is already open
// shows the popup's tick when it is stored, keeps a change of its own not yet saved, and
// its Save never stores the box as it drew it over a tick made in the popup meanwhile.
// The real options/options.js runs here, over the stand-in of support/options-page.js;
// the popup's tick is what popup.js stores: the stored options with `load` changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { settle, world } from './support/options-page.js';

const w = world();
Object.assign(globalThis, { chrome: w.chrome, document: w.doc, window: w.win });
const { DEFAULT_OPTIONS, LOADS, planFromOptions } = await import('../lib/defaults.js');

/** The popup's load box, ticked or unticked: stored at once, as popup.js loadBox does. */
const popupTicks = (load) => w.set({ options: { ...DEFAULT_OPTIONS, ...w.store.options, load } });
const save = async () => {
  w.els.sizeMiB.value = '1'; // a valid form
  await w.els.form.fire('submit');
  assert.equal(w.els.errors.textContent, '', 'the form was saved');
};

test('an open Options page shows the load box the popup ticked, and its Save keeps the tick', async () => {
  await import('../options/options.js');
  await settle();
  assert.equal(w.els.load.checked, false, 'the default: quiet only');
  await popupTicks(true);
  await settle();
  assert.equal(w.els.load.checked, true, 'the open page drew the popup\'s tick');
  await save();
  assert.equal(w.store.options.load, true, 'Save stored the box as the page first drew it, over the popup\'s tick');
  // The plan the next run sends: both loads.
  assert.deepEqual(planFromOptions(w.store.options).loads, LOADS);
});

test('a change made on the page and not yet saved survives another setting stored meanwhile', async () => {
  w.els.load.checked = false; // unticked here, not saved
  await w.set({ options: { ...w.store.options, modules: ['mine'] } }); // the popup ticks a module
  await settle();
  assert.equal(w.els.load.checked, false, 'the unsaved untick was drawn over');
  await save();
  assert.equal(w.store.options.load, false);
  assert.deepEqual(w.store.options.modules, ['mine']);
});

test('a popup tick the page was not told of is kept by Save, and drawn when the page is shown again', async () => {
  // Stored with no change event reaching this page.
  w.store.options = { ...w.store.options, load: true };
  assert.equal(w.els.load.checked, false);
  await save();
  assert.equal(w.store.options.load, true, 'Save dropped a tick it never showed');
  w.store.options = { ...w.store.options, load: false };
  await w.doc.fire('visibilitychange');
  await settle();
  assert.equal(w.els.load.checked, false, 'shown again, the page drew the stored untick');
  w.store.options = { ...w.store.options, load: true };
  await w.win.fire('focus');
  await settle();
  assert.equal(w.els.load.checked, true, 'focused again, the page drew the stored tick');
});

test('Defaults then Save stores the default, whatever was stored', async () => {
  assert.equal(w.store.options.load, true);
  await w.els.reset.fire('click');
  assert.equal(w.els.load.checked, DEFAULT_OPTIONS.load);
  await save();
  assert.equal(w.store.options.load, DEFAULT_OPTIONS.load);
});
