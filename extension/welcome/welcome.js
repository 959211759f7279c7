// First-install page: how to find the button, and doctor's check from the browser's
// side (is the helper registered and answering, and which version is it?).
import { api } from '../lib/api.js';
import { describeBrowser, isChromiumFamily } from '../lib/environment.js';
import { NOTE, explainHostError, noteText, pinInstructions } from '../lib/format.js';
import { MESSAGE } from '../lib/messages.js';

const $ = (id) => document.getElementById(id);

async function check(browser) {
  $('host').className = 'pending';
  $('host-what').textContent = noteText(NOTE.checking);
  $('host-fix').textContent = '';
  $('host-detail').textContent = '';
  const reply = await api.runtime.sendMessage({ type: MESSAGE.checkHost });
  if (reply?.ok) {
    $('host').className = 'ok';
    $('host-what').textContent = noteText(NOTE.hostAnswered, reply);
    const version = api.runtime.getManifest().version;
    $('host-fix').textContent = noteText(reply.version === version ? NOTE.versionsMatch : NOTE.versionsDiffer, { version });
    return;
  }
  const p = explainHostError(reply ?? { error: noteText(NOTE.noBackgroundAnswer) }, browser);
  $('host').className = 'bad';
  $('host-what').textContent = p.what;
  $('host-fix').textContent = p.fix;
  $('host-detail').textContent = p.detail;
}

async function main() {
  const env = await describeBrowser(api);
  $('pin').textContent = pinInstructions(isChromiumFamily(env.browser));
  $('recheck').addEventListener('click', () => check(env.browser).catch((e) => ($('host-what').textContent = String(e?.message ?? e))));
  await check(env.browser);
}

main().catch((e) => ($('host-what').textContent = String(e?.message ?? e)));
