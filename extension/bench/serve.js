// The page of `unobserved serve`: what the host offers, its Run button (focused, so
// Enter starts it), and afterwards the host's analysis, drawn as the popup draws it.
// bench.js runs the uploads; host-channel.js carries its messages to the host.
import { hostChannel } from './host-channel.js';
import { drawResult } from '../lib/result-view.js';
import { formatMbps } from '../lib/words.js';
import { NOTE, noteText, offerText } from '../lib/format.js';

const $ = (id) => document.getElementById(id);
const status = (text) => ($('status').textContent = text);

async function main() {
  if (!hostChannel) {
    status(noteText(NOTE.serveNeedsToken));
    return;
  }
  const offer = await hostChannel.offer();
  $('plan').textContent = offerText(offer);
  const run = $('run');
  hostChannel.on('progress', (step) => status(noteText(NOTE.step, { step, what: step.label })));
  hostChannel.on('failed', (e) => status(noteText(NOTE.failed, e)));
  hostChannel.on('finished', (finished) => {
    const a = finished.analysis;
    status(noteText(a ? NOTE.serveStored : NOTE.serveDone, { runId: finished.run_id }));
    const fastest = a?.arms?.reduce((m, x) => Math.max(m, x.median_mbps ?? 0), 0);
    if (fastest) document.title = noteText(NOTE.title, { mbps: formatMbps(fastest) });
    drawResult($('result'), { ...finished, analysis: a });
    // Another run is a fresh page: each start is a run of its own.
    again = true;
    run.textContent = noteText(NOTE.runAgain);
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
    run.textContent = noteText(NOTE.running);
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
