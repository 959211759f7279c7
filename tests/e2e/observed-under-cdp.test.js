// The one test that attaches a debugger on purpose: the benchmark page is run in a
// Chromium driven over CDP by puppeteer-core (system Chromium, no browser download),
// and the run must come out flagged as observed. Needs `cargo build` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import puppeteer from 'puppeteer-core';

const ROOT = resolve(import.meta.dirname, '../..');
const HOST = join(ROOT, 'target/debug/unobserved');
const EXTENSION_ID = 'ofhblkgjlepfiadjplffojmacooicfhm';

async function waitFor(check, ms, what) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}


/** The `kind` of every whole record in the store (a line still being written is skipped). */
function storedKinds(store) {
  return readFileSync(store, 'utf8').split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line).kind];
    } catch {
      return [];
    }
  });
}

test('a run under a CDP-driven browser is flagged observed', { timeout: 120_000 }, async () => {
  assert.ok(existsSync(HOST), `build the host first (cargo build): ${HOST}`);
  // The browser `unobserved run` would launch, found by the host's own rule (exit 3 and
  // an install hint when there is none).
  const CHROMIUM = execFileSync(HOST, ['__find-browser', 'chromium'], { encoding: 'utf8' }).trim();
  const tmp = mkdtempSync(join(tmpdir(), 'unobserved-cdp-'));
  const [profile, home, state] = ['profile', 'home', 'state'].map((d) => join(tmp, d));
  for (const d of [profile, home, state]) mkdirSync(d, { recursive: true });
  mkdirSync(join(profile, 'NativeMessagingHosts'));
  writeFileSync(join(profile, 'NativeMessagingHosts', 'org.unobserved.host.json'), JSON.stringify({
    name: 'org.unobserved.host', description: 'test', path: HOST, type: 'stdio',
    allowed_origins: [`chrome-extension://${EXTENSION_ID}/`],
  }));
  const job = join(tmp, 'job.json');
  writeFileSync(job, JSON.stringify({
    run_id: 'cdp-observed', close_tab: true,
    plan: { size_bytes: 1 << 20, reps: 2, warmup: 0, bodies: ['Uint8Array', 'Blob'] },
  }));

  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    ignoreDefaultArgs: ['--disable-extensions'],
    args: [`--load-extension=${join(ROOT, 'extension')}`, '--no-sandbox', '--disable-gpu'],
    env: { ...process.env, HOME: home, UNOBSERVED_STATE_DIR: state, UNOBSERVED_JOB: job },
  });
  try {
    const store = join(state, 'results.jsonl');
    await waitFor(() => existsSync(store) && storedKinds(store).includes('run_end'), 90_000, 'the run to finish');
  } finally {
    await browser.close();
  }
  const doc = JSON.parse(execFileSync(HOST, ['report', '--format', 'json', '--run', 'cdp-observed'], {
    env: { ...process.env, UNOBSERVED_STATE_DIR: state },
  }));
  assert.equal(doc.schema_version, 3);
  assert.equal(doc.runs.length, 1);
  const report = doc.runs[0];
  assert.equal(report.run.status, 'complete');
  assert.equal(report.samples.length, 4);
  assert.ok(report.samples.every((s) => s.observed.webdriver === true), 'navigator.webdriver is true under automation');
  assert.equal(report.run.observed, 'yes');
  rmSync(tmp, { recursive: true, force: true });
});
