import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

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
  const port = { onMessage: [], onDisconnect: [], sent: [] };
  const chrome = {
    runtime: {
      connect: () => ({
        onMessage: { addListener: (fn) => port.onMessage.push(fn) },
        onDisconnect: { addListener: (fn) => port.onDisconnect.push(fn) },
        postMessage: (m) => {
          port.sent.push(m);
          // The background's answer: a plan for the run's tab, a disconnect otherwise.
          if (backgroundAccepts) port.onMessage.forEach((fn) => fn({ type: 'plan' }));
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
  page.fromPage({ source: 'unobserved-page', type: 'ready' });
  assert.deepEqual(page.toPage, []);
});

test("the run's own tab gets the background's messages", () => {
  const page = pageWithRelay({ backgroundAccepts: true });
  page.fromPage({ source: 'unobserved-page', type: 'ready' });
  assert.deepEqual(page.plain(page.toPage), [{ type: 'plan', source: 'unobserved-extension' }]);
  assert.deepEqual(page.plain(page.port.sent), [{ type: 'ready' }]);
});

test('messages not marked as the page\'s are ignored', () => {
  const page = pageWithRelay({ backgroundAccepts: true });
  page.fromPage({ type: 'ready' });
  assert.deepEqual(page.port.sent, []);
});
