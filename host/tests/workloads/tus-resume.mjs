// tus-js-client, unmodified, resuming: the upload is stopped after its first 16 MiB
// PATCH, then a new Upload of the same file resumes it from the server's offset (HEAD,
// then PATCH from there). Bundled with the library by scripts/build-workloads.mjs.
import * as tus from 'tus-js-client';

export const unobserved = 1;

const CHUNK = 16 * 1024 * 1024;

function start(blob, options) {
  return new Promise((resolve, reject) => {
    const up = new tus.Upload(blob, { chunkSize: CHUNK, retryDelays: [], storeFingerprintForResuming: false, onError: reject, onSuccess: () => resolve(up), ...options });
    options.bind?.(up, resolve);
    up.start();
  });
}

export default async function upload({ blob, tusEndpoint }) {
  // First: stop once the first PATCH is acknowledged.
  const first = await start(blob, {
    endpoint: tusEndpoint,
    bind: (up, resolve) => {
      up.options.onChunkComplete = (_, sent) => {
        if (sent >= CHUNK) up.abort().then(() => resolve(up));
      };
    },
  });
  if (!first.url) throw new Error('the first upload was never created');
  // Then: resume at its URL; tus-js-client asks HEAD for the offset and PATCHes on.
  await start(blob, { uploadUrl: first.url });
}
