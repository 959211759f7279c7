// WebKit's positive control for observation: the page `unobserved serve` serves, run in
// MiniBrowser driven by WebKitWebDriver (webkit2gtk-driver, `--automation`), must come out
// flagged observed. The driver only opens the URL and clicks Run; the page reports as it
// always does. Needs `cargo build` first; starts its own Xvfb.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

const ROOT = resolve(import.meta.dirname, '../..');
const HOST = join(ROOT, 'target/debug/unobserved');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** Xvfb on the first free display from :150; resolves once its socket is there. */
async function startXvfb() {
  for (let n = 150; n < 200; n++) {
    if (existsSync(`/tmp/.X${n}-lock`)) continue;
    const child = spawn('Xvfb', [`:${n}`, '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    for (let i = 0; i < 100 && child.exitCode === null; i++) {
      if (existsSync(`/tmp/.X11-unix/X${n}`)) return { child, display: `:${n}` };
      await sleep(50);
    }
    child.kill();
  }
  throw new Error('no free display for Xvfb');
}

async function webdriver(port, method, path, body) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, body: body && JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const reply = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(reply)}`);
  return reply.value;
}

test('a run in a WebKit driven by WebKitWebDriver is flagged observed', { timeout: 150_000 }, async () => {
  assert.ok(existsSync(HOST), `build the host first (cargo build): ${HOST}`);
  const MINIBROWSER = execFileSync(HOST, ['__find-browser', 'webkit'], { encoding: 'utf8' }).trim();
  const tmp = mkdtempSync(join(tmpdir(), 'unobserved-webkitdriver-'));
  const env = { ...process.env, UNOBSERVED_STATE_DIR: join(tmp, 'state'), HOME: tmp };
  const xvfb = await startXvfb();
  const serve = spawn(HOST, ['serve', '--once', '--size', '1MiB', '--reps', '2', '--warmup', '0', '--bodies', 'Uint8Array,Blob'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const lines = createInterface({ input: serve.stdout });
  const url = await new Promise((r) => lines.once('line', r));
  const served = new Promise((r) => serve.once('exit', r));
  const port = await freePort();
  const driver = spawn('WebKitWebDriver', [`--port=${port}`], { env: { ...env, DISPLAY: xvfb.display }, stdio: 'ignore' });
  let session = null;
  try {
    for (let i = 0; session === null && i < 50; i++) {
      try {
        const caps = { 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } };
        session = (await webdriver(port, 'POST', '/session', { capabilities: { alwaysMatch: caps } })).sessionId;
      } catch (e) {
        if (!String(e).includes('ECONNREFUSED') && !String(e.cause).includes('ECONNREFUSED')) throw e;
        await sleep(100);
      }
    }
    await webdriver(port, 'POST', `/session/${session}/url`, { url });
    const button = await webdriver(port, 'POST', `/session/${session}/element`, { using: 'css selector', value: '#run' });
    const id = Object.values(button)[0];
    for (let i = 0; i < 100 && !(await webdriver(port, 'GET', `/session/${session}/element/${id}/enabled`)); i++) await sleep(100);
    await webdriver(port, 'POST', `/session/${session}/element/${id}/click`, {});
    let timer;
    const code = await Promise.race([served, new Promise((r) => (timer = setTimeout(() => r('timed out'), 90_000)))]);
    clearTimeout(timer);
    assert.equal(code, 0, 'serve --once exits 0 after the run');
  } finally {
    if (session) await webdriver(port, 'DELETE', `/session/${session}`).catch(() => {});
    driver.kill();
    serve.kill();
    xvfb.child.kill();
  }
  const doc = JSON.parse(execFileSync(HOST, ['report', '--format', 'json', '--run', 'last'], { env }));
  const report = doc.runs[0];
  assert.equal(report.run.status, 'complete');
  assert.equal(report.run.browser, 'WebKitGTK');
  assert.equal(report.samples.length, 4);
  assert.ok(report.samples.every((s) => s.observed.webdriver === true), 'navigator.webdriver is true under WebKitWebDriver');
  assert.equal(report.run.observed, 'yes');
  rmSync(tmp, { recursive: true, force: true });
});
