// Side by side: the default suite's Uint8Array and Blob medians from `unobserved run`
// against the write-up's own method (a puppeteer-launched Chromium, CDP detached before
// the uploads, a Node sink that only counts bytes). Interleaved rounds, one machine.
// It attaches a debugger only to launch its own comparison browser and lets go before
// any byte moves; `unobserved run` never attaches one. A benchmark, not a test.
//
//   node bench/writeup-method.mjs            (env: ROUNDS=3 MIB=32 REPS=6)
// Needs `cargo build --release` and `npm ci` first.
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer from 'puppeteer-core';

const ROOT = resolve(import.meta.dirname, '..');
const HOST = join(ROOT, 'target/release/unobserved');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/lib/chromium/chromium';
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const MIB = Number(process.env.MIB ?? 32);
const REPS = Number(process.env.REPS ?? 6);
const KINDS = ['Uint8Array', 'Blob'];

const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

// The page: the same interleaved loop as the write-up, results posted back to the sink.
const PAGE = `<!doctype html><meta charset="utf-8"><script>
window.addEventListener('load', async () => {
  await new Promise((r) => setTimeout(r, 1000)); // let the harness detach first
  const bytes = ${MIB} * 1024 * 1024;
  const chunk = new Uint8Array(bytes);
  for (let o = 0; o < bytes; o += 65536) crypto.getRandomValues(chunk.subarray(o, o + 65536));
  const make = (k) => (k === 'Uint8Array' ? chunk : new Blob([chunk]));
  const results = { Uint8Array: [], Blob: [], webdriver: navigator.webdriver };
  for (const k of ${JSON.stringify(KINDS)}) await (await fetch('/sink', { method: 'PUT', body: make(k) })).json();
  for (let r = 0; r < ${REPS}; r++) {
    for (const k of ${JSON.stringify(KINDS)}) {
      const t0 = performance.now();
      await (await fetch('/sink', { method: 'PUT', body: make(k) })).json();
      results[k].push((bytes * 8) / ((performance.now() - t0) / 1000) / 1e6);
    }
  }
  await fetch('/results', { method: 'POST', body: JSON.stringify(results) });
});
</script>`;

function countSink(onResults) {
  const server = http.createServer((req, res) => {
    if (req.url === '/sink') {
      let n = 0;
      req.on('data', (c) => (n += c.length));
      req.on('end', () => res.end(JSON.stringify({ received: n })));
    } else if (req.url === '/results') {
      let s = '';
      req.on('data', (c) => (s += c));
      req.on('end', () => {
        res.end('{}');
        onResults(JSON.parse(s));
      });
    } else {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PAGE);
    }
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

async function writeupRound() {
  let done;
  const results = new Promise((r) => (done = r));
  const server = await countSink(done);
  const profile = mkdtempSync(join(tmpdir(), 'writeup-method-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    pipe: false,
    userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const page = (await browser.pages())[0];
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  const proc = browser.process();
  await browser.disconnect(); // the write-up's "detached" phase: no CDP client while bytes move
  const r = await results;
  proc.kill('SIGKILL');
  server.close();
  rmSync(profile, { recursive: true, force: true });
  return { Uint8Array: median(r.Uint8Array), Blob: median(r.Blob) };
}

function unobservedRound(env = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'writeup-vs-unobserved-'));
  const out = join(dir, 'run.json');
  execFileSync(HOST, ['run', '--browser', 'chromium', '--size', `${MIB}MiB`, '--reps', String(REPS), '--bodies', KINDS.join(','), '--quiet', '--json', out], {
    env: { ...process.env, ...env, UNOBSERVED_STATE_DIR: join(dir, 'state') },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const run = JSON.parse(readFileSync(out, 'utf8')).runs[0];
  rmSync(dir, { recursive: true, force: true });
  const byArm = Object.fromEntries(run.summary.map((a) => [a.arm.label, a]));
  return {
    Uint8Array: byArm.Uint8Array.median_mbps,
    Blob: byArm.Blob.median_mbps,
    sinkBound: run.summary.filter((a) => a.sink_bound).map((a) => a.arm.label),
    timingFlags: run.summary.reduce((n, a) => n + a.timing_flags, 0),
    samples: run.samples.length,
    ceiling: run.run.sink_ceiling_mbps,
  };
}

// A third column: Unobserved with its hasher slowed to a CPU without SHA-NI (~260 MB/s,
// the 2.0 GHz Xeon), to show that a slow hasher delays verdicts, not numbers.
const SLOW = { UNOBSERVED_SIMULATE_HASH_MS_PER_MIB: process.env.SLOW_MS_PER_MIB ?? '3.5' };
const rows = [];
const show = (u) => `U8 ${u.Uint8Array.toFixed(0)} Blob ${u.Blob.toFixed(0)} (ceiling ${u.ceiling?.toFixed(0)}, sink-bound [${u.sinkBound}], timing flags ${u.timingFlags}/${u.samples})`;
for (let i = 0; i < ROUNDS; i++) {
  const w = await writeupRound();
  const u = unobservedRound();
  const s = unobservedRound(SLOW);
  rows.push({ w, u, s });
  console.log(`round ${i + 1}: write-up method U8 ${w.Uint8Array.toFixed(0)} Blob ${w.Blob.toFixed(0)} | unobserved ${show(u)} | slow hasher ${show(s)}`);
}
for (const k of KINDS) {
  const w = median(rows.map((r) => r.w[k]));
  const u = median(rows.map((r) => r.u[k]));
  const s = median(rows.map((r) => r.s[k]));
  console.log(`${k}: write-up method ${w.toFixed(0)} Mbps, unobserved ${u.toFixed(0)} (${(u / w).toFixed(2)}x), unobserved with a slow hasher ${s.toFixed(0)} (${(s / w).toFixed(2)}x)`);
}
