import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SETTLE_MS, pacer, pending, workerSleep } from '../lib/pacing.js';

/** A clock the test moves, and a sleep that moves it. */
function fakeTime() {
  const t = { now: 0, slept: [] };
  t.clock = () => t.now;
  t.sleep = async (ms) => {
    t.slept.push(ms);
    t.now += ms;
  };
  return t;
}

test('the next upload starts a fixed settle time after the headers, however long the digest takes', async () => {
  const t = fakeTime();
  const p = pacer({ clock: t.clock, sleep: t.sleep });
  await p.ready();
  assert.deepEqual(t.slept, [], 'the first upload goes at once');
  t.now = 130; // the headers of upload 1 came at 100; the page noted them 30 ms later
  p.settleFrom(100);
  await p.ready();
  assert.equal(t.now, 100 + SETTLE_MS, 'settled from the headers, not from the page or the digest');
  p.settleFrom(400);
  t.now = 400 + SETTLE_MS + 30; // the page's own work ran past the settle time
  await p.ready();
  assert.equal(t.slept.length, 1, 'no wait once the settle time has passed');
});

test('draining waits for every digest still on its way, failed ones included', async () => {
  const p = pending();
  const order = [];
  let release;
  p.add(new Promise((resolve) => (release = resolve)).then(() => order.push('slow digest')));
  p.add(Promise.reject(new Error('network')).catch(() => order.push('failed read')));
  const drained = p.drain().then(() => order.push('drained'));
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(order, ['failed read']);
  release();
  await drained;
  assert.deepEqual(order, ['failed read', 'slow digest', 'drained']);
});

test("the settle time sleeps on a worker's timers, each sleep answered by its own id", async () => {
  const asked = [];
  const worker = { postMessage: (m) => asked.push(m) };
  const sleep = workerSleep(worker);
  const done = [];
  const first = sleep(150).then(() => done.push('first'));
  const second = sleep(20).then(() => done.push('second'));
  assert.deepEqual(asked, [{ id: 0, ms: 150 }, { id: 1, ms: 20 }]);
  worker.onmessage({ data: 1 });
  await second;
  assert.deepEqual(done, ['second']);
  worker.onmessage({ data: 0 });
  await first;
  assert.deepEqual(done, ['second', 'first']);
});
