// What counts as a sink's upload URL: an http or https URL with a host whose path holds
// /upload/ (then the token), as `unobserved sink` prints it. The host's rule is
// host/src/sink/remote.rs (SinkUrl); tests/fixtures/sink-urls.json holds both to the same
// cases. The URL is read by the browser's own parser, never by a pattern.

export const UPLOAD_PREFIX = '/upload/';

/** The parsed URL when `text` names a sink's upload path, else null. */
export function parseSinkUrl(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const web = url.protocol === 'http:' || url.protocol === 'https:';
  return web && url.hostname !== '' && url.pathname.includes(UPLOAD_PREFIX) ? url : null;
}
