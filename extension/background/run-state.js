// The run's state lives in storage.local, so the popup can close and reopen at any
// time and still show progress or the last result.
import { api } from '../lib/api.js';
import { POPUP_PHASE } from '../lib/names.js';

const KEY = 'runState';

export async function getRunState() {
  return (await api.storage.local.get(KEY))[KEY] ?? { phase: POPUP_PHASE.idle };
}

export async function setRunState(state) {
  await api.storage.local.set({ [KEY]: state });
}

export async function patchRunState(patch) {
  await setRunState({ ...(await getRunState()), ...patch });
}
