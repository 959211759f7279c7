// What counts as a sink's upload URL: an http or https URL with a host whose path holds
// /upload/ (then the token), as `unobserved sink` prints it; an https one pins the sink's
// certificate in its fragment (`#sha256=<64 hex digits>`, which the host checks). The
// host's rule is host/src/sink/remote.rs (SinkUrl); tests/fixtures/sink-urls.json holds
// both to the same cases. The URL is read by the browser's own parser, never by a pattern.

export const UPLOAD_PREFIX = '/upload/';
const PIN_KEY = 'sha256=';

/** 64 hex digits once colons are taken out: a certificate's SHA-256. */
const isPin = (text) => /^[0-9A-Fa-f]{64}$/.test(text.replaceAll(':', ''));

/** The parsed URL when `text` names a sink's upload path, else null. */
export function parseSinkUrl(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const web = url.protocol === 'http:' || url.protocol === 'https:';
  if (!(web && url.hostname !== '' && url.pathname.includes(UPLOAD_PREFIX))) return null;
  // An empty fragment ("…#") is a fragment too: the parser hides it, the text does not.
  const fragment = String(text).includes('#') ? url.hash.slice(1) : null;
  if (url.protocol === 'http:') return fragment === null ? url : null;
  return fragment?.startsWith(PIN_KEY) && isPin(fragment.slice(PIN_KEY.length)) ? url : null;
}

/** The transport a sink's uploads travel over: its URL's ('h2' for https, 'h1' for http), or null. */
export function sinkTransport(text) {
  const url = parseSinkUrl(text);
  if (!url) return null;
  return url.protocol === 'https:' ? 'h2' : 'h1';
}

/** The host permission a sink needs: its scheme and host, any port (Firefox refuses a pattern that names one). */
export function sinkHostPermission(text) {
  const url = new URL(text);
  return `${url.protocol}//${url.hostname}/*`;
}
