// The page of `unobserved serve`: what the host offers, its Run button (focused, so
// Enter starts it), and afterwards the host's analysis, drawn as the popup draws it.
// bench.js runs the uploads; host-channel.js carries its messages to the host.
import { hostChannel } from './host-channel.js';
import { drawResult } from '../lib/result-view.js';
import { formatMbps } from '../lib/words.js';

const $ = (id) => document.getElementById(id);
const status = (text) => ($('status').textContent = text);

function describe(offer) {
  const p = offer.plan;
  const mib = p.size_bytes / (1024 * 1024);
  const size = Number.isInteger(mib) ? `${mib} MiB` : `${p.size_bytes} bytes`;
  const reps = p.auto ? `${p.reps} reps or more (auto, up to ${p.auto.max_reps})` : `${p.reps} reps`;
  return `${offer.arms.join(', ')} · ${size} per upload × ${reps}, ${p.warmup} warm-up`;
}

async function main() {
  if (!hostChannel) {
    status('Open this page with the URL `unobserved serve` printed (it carries the session token).');
    return;
  }
  const offer = await hostChannel.offer();
  $('plan').textContent = describe(offer);
  const run = $('run');
  hostChannel.on('progress', (step) => status(`${step.phase === 'warmup' ? 'Warm-up' : 'Rep'} ${step.rep + 1}: ${step.label}`));
  hostChannel.on('failed', (e) => status(`Failed: ${e.message}`));
  hostChannel.on('finished', (finished) => {
    const a = finished.analysis;
    status(a ? `Done: run ${finished.run_id}, stored by the host.` : `Done: run ${finished.run_id}.`);
    const fastest = a?.arms?.reduce((m, x) => Math.max(m, x.median_mbps ?? 0), 0);
    if (fastest) document.title = `Unobserved: ${formatMbps(fastest)} Mbps`;
    drawResult($('result'), { ...finished, analysis: a });
    // Another run is a fresh page: each start is a run of its own.
    again = true;
    run.textContent = 'Run again';
    run.disabled = false;
    run.focus();
  });
  let again = false;
  const go = () => {
    if (again) {
      location.reload();
      return;
    }
    run.disabled = true;
    run.textContent = 'Running…';
    status('Starting…');
    hostChannel.start();
  };
  run.addEventListener('click', go);
  // A fresh page of a later block goes on with the run the page before it handed over.
  if (offer.start === 'auto' || hostChannel.resuming) {
    go();
    return;
  }
  run.disabled = false;
  run.focus();
}

main().catch((e) => status(`Failed: ${e.message}`));
