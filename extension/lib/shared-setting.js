// A setting that the popup and an Options page already open can both change: the
// CPU-load box (`--load none,cpu`). The page keeps what it last drew from storage
// (`drawn`), so it can tell a change made here from one made elsewhere meanwhile. The
// registered-module ticks follow the same rule, per module (module-choices.js).

/**
 * What an open page shows when it reads the stored value again (storage changed, or the
 * page is shown or focused again): the stored value when it changed since the page drew
 * (`drawn`), the newest choice; otherwise its own box (`shown`), so an unsaved change
 * survives.
 */
export function settingToRedraw({ shown, drawn, stored }) {
  return stored !== drawn ? stored : shown;
}

/**
 * What a page's Save stores: its own box when it was changed here since the page drew
 * (`drawn`), else the stored value, which the popup may have changed meanwhile (even
 * unseen: the page decides only what it changed).
 */
export function settingToSave({ shown, drawn, stored }) {
  return shown !== drawn ? shown : stored;
}
