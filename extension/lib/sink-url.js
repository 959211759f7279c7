// What counts as a sink's upload URL: an http or https URL with a host whose path holds
// /upload/ (then the token), as `unobserved sink` prints it; an https one pins the sink's
// certificate in its fragment (`#sha256=<64 hex digits>`, which the host checks), then may
// say the sink offers only HTTP/1.1 over TLS (`&transport=h1-tls`; HTTP/2 otherwise). The
// host's rule is host/src/domain/sink_url.rs (SinkUrl); tests/fixtures/sink-urls.json holds
// both to the same cases. The URL is read by the browser's own parser, never by a pattern.

export const UPLOAD_PREFIX = '/upload/';
const PIN_KEY = 'sha256=';
const TRANSPORT_KEY = 'transport=';
/** What a TLS sink's fragment may say after its pin, and the transport each names. */
const TLS_TRANSPORTS = { 'h1-tls': 'h1-tls', h2: 'h2' };

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
  return fragment !== null && tlsTransport(fragment) ? url : null;
}

/** A TLS sink's fragment, `sha256=<pin>` then optionally `&transport=h1-tls|h2`: its transport, or null. */
function tlsTransport(fragment) {
  const amp = fragment.indexOf('&');
  const [pin, rest] = amp < 0 ? [fragment, null] : [fragment.slice(0, amp), fragment.slice(amp + 1)];
  if (!(pin.startsWith(PIN_KEY) && isPin(pin.slice(PIN_KEY.length)))) return null;
  if (rest === null) return 'h2';
  if (!rest.startsWith(TRANSPORT_KEY)) return null;
  return Object.hasOwn(TLS_TRANSPORTS, rest.slice(TRANSPORT_KEY.length))
    ? TLS_TRANSPORTS[rest.slice(TRANSPORT_KEY.length)]
    : null;
}

/** The transport a sink's uploads travel over: its URL's ('h2' for https unless it says h1-tls, 'h1' for http), or null. */
export function sinkTransport(text) {
  const url = parseSinkUrl(text);
  if (!url) return null;
  return url.protocol === 'https:' ? tlsTransport(url.hash.slice(1)) : 'h1';
}

/**
 * Whether Firefox's extension pages would send this sink's uploads to https:// instead: a
 * Manifest V3 extension page's default Content-Security-Policy there has
 * `upgrade-insecure-requests`, which spares only loopback (127.0.0.0/8, ::1, localhost and
 * *.localhost), so a plain sink elsewhere gets a TLS handshake it cannot answer. The
 * host's rule is SinkUrl::gecko_upgrades_to_https; tests/fixtures/sink-urls.json holds
 * both to the same cases. False for what is not a sink URL at all.
 */
export function geckoUpgradesToHttps(text) {
  const url = parseSinkUrl(text);
  if (!url || url.protocol !== 'http:') return false;
  // The parser gives an IPv4 host as four decimal parts, an IPv6 one bracketed and compressed.
  const host = url.hostname;
  const parts = host.split('.');
  const ipv4Loopback = parts.length === 4 && parts.every((p) => /^\d+$/.test(p)) && parts[0] === '127';
  const loopback = ipv4Loopback || host === '[::1]' || host === 'localhost' || host.endsWith('.localhost');
  return !loopback;
}

/** The host permission a sink needs: its scheme and host, any port (Firefox refuses a pattern that names one). */
export function sinkHostPermission(text) {
  const url = new URL(text);
  return `${url.protocol}//${url.hostname}/*`;
}
