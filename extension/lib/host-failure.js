// Why talking to the native host failed, as a kind the popup and the welcome page branch
// on. The browsers' own disconnect words are read here and nowhere else.
export const HOST_FAILURE = Object.freeze({
  /** No host manifest where this browser (or this --user-data-dir) looks. */
  notRegistered: 'not-registered',
  /** A manifest exists but does not allow this extension's id. */
  forbidden: 'forbidden',
  /** The host started and went away. */
  exited: 'exited',
  /** The host answered error `store-failed` (PROTOCOL.md, error codes). */
  storeFailed: 'store-failed',
  /** Any other numbered host error. */
  hostError: 'host-error',
});

/** Chromium: "Specified native messaging host not found." / "… is forbidden."; Firefox: "No such native application …" for both. */
export function disconnectFailure(browserMessage) {
  const m = browserMessage ?? '';
  if (/not found|No such native application/i.test(m)) return HOST_FAILURE.notRegistered;
  if (/forbidden/i.test(m)) return HOST_FAILURE.forbidden;
  return HOST_FAILURE.exited;
}

/** The host's own `error` reply, by its name. */
export function replyFailure(reply) {
  return reply?.name === 'store-failed' ? HOST_FAILURE.storeFailed : HOST_FAILURE.hostError;
}
