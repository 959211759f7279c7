import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { BENCH_PORT, EXTENSION, FROM_EXTENSION, FROM_PAGE, PAGE } from '../lib/page-protocol.js';

const SOURCE = readFileSync(new URL('../content/relay.js', import.meta.url), 'utf8');

/** The relay in a fake page, with a background that accepts or refuses the tab. */
function pageWithRelay({ backgroundAccepts }) {
  const toPage = [];
  let listener = null;
  const window = {
    location: { origin: 'http://127.0.0.1:5000' },
    addEventListener: (type, fn) => { if (type === 'message') listener = fn; },
    postMessage: (m) => toPage.push(m),
  };
  const port = { onMessage: [], onDisconnect: [], sent: [], names: [] };
  const chrome = {
    runtime: {
      connect: ({ name }) => (port.names.push(name), {
        onMessage: { addListener: (fn) => port.onMessage.push(fn) },
        onDisconnect: { addListener: (fn) => port.onDisconnect.push(fn) },
        postMessage: (m) => {
          port.sent.push(m);
          // The background's answer: a plan for the run's tab, a disconnect otherwise.
          if (backgroundAccepts) port.onMessage.forEach((fn) => fn({ type: EXTENSION.plan }));
          else port.onDisconnect.forEach((fn) => fn());
        },
      }),
    },
  };
  vm.runInNewContext(SOURCE, { window, chrome, globalThis: { chrome } });
  const fromPage = (data) => listener({ source: window, data });
  // Objects made inside the vm context have its prototypes: compare them as data.
  const plain = (x) => JSON.parse(JSON.stringify(x));
  return { toPage, fromPage, port, plain };
}

test('a page the background refuses hears nothing back, not even "disconnected"', () => {
  const page = pageWithRelay({ backgroundAccepts: false });
  page.fromPage({ source: FROM_PAGE, type: PAGE.ready });
  assert.deepEqual(page.toPage, []);
});

test("the run's own tab gets the background's messages", () => {
  const page = pageWithRelay({ backgroundAccepts: true });
  page.fromPage({ source: FROM_PAGE, type: PAGE.ready });
  assert.deepEqual(page.plain(page.toPage), [{ type: EXTENSION.plan, source: FROM_EXTENSION }]);
  assert.deepEqual(page.plain(page.port.sent), [{ type: 'ready' }]);
});

test('messages not marked as the page\'s are ignored', () => {
  const page = pageWithRelay({ backgroundAccepts: true });
  page.fromPage({ type: 'ready' });
  assert.deepEqual(page.port.sent, []);
});

test('the relay speaks the page protocol: its markers and port name are the module\'s', () => {
  const page = pageWithRelay({ backgroundAccepts: true });
  page.fromPage({ source: FROM_PAGE, type: PAGE.ready });
  assert.deepEqual(page.port.names, [BENCH_PORT]);
  assert.equal(page.plain(page.toPage)[0].source, FROM_EXTENSION);
});
