// The Options page in Firefox (issue 39): a plain http:// sink that is not on this machine
// is refused with its typed problem and nothing is stored, because Firefox's extension
// pages would upgrade every upload to it to https:// (tests/fixtures/sink-urls.json,
// gecko_upgrades_to_https: the same cases `run --browser firefox --sink-url` refuses).
// The real options/options.js runs over the stand-in of support/options-page.js, with the
// one API only Firefox has (runtime.getBrowserInfo).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { settle, world } from './support/options-page.js';

const SINK_URLS = JSON.parse(readFileSync(new URL('../../tests/fixtures/sink-urls.json', import.meta.url), 'utf8'));
const w = world();
w.chrome.runtime.getBrowserInfo = async () => ({ name: 'Firefox', version: '150.0' });
Object.assign(globalThis, { chrome: w.chrome, document: w.doc, window: w.win });
const { DEFAULT_OPTIONS, OPTION_PROBLEM } = await import('../lib/defaults.js');
const { problemText } = await import('../lib/format.js');

/** Save with `sinkUrl` over its own transport: the options stored, or undefined. */
async function save({ url, transport }) {
  delete w.store.options;
  w.els.sizeMiB.value = '1';
  w.els.sinkUrl.value = url;
  for (const box of w.els.transports.querySelectorAll('input')) box.checked = box.value === transport;
  await w.els.form.fire('submit');
  return w.store.options;
}

test('Options in Firefox refuse a plain sink off loopback, typed, and store nothing; loopback and https are saved', async () => {
  await import('../options/options.js');
  await settle();
  const refused = problemText({ kind: OPTION_PROBLEM.plainSinkUpgraded });
  const cases = SINK_URLS.sinks;
  assert.ok(cases.some((s) => s.gecko_upgrades_to_https) && cases.some((s) => !s.gecko_upgrades_to_https));
  for (const sink of cases) {
    const stored = await save(sink);
    if (sink.gecko_upgrades_to_https) {
      assert.equal(stored, undefined, `${sink.url} was saved`);
      assert.equal(w.els.errors.textContent, refused, sink.url);
    } else {
      assert.equal(w.els.errors.textContent, '', sink.url);
      assert.equal(stored?.sinkUrl, sink.url, sink.url);
    }
  }
  assert.equal(DEFAULT_OPTIONS.sinkUrl, '', 'the local sink is the default');
});
