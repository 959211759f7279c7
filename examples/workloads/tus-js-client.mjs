// tus-js-client, from the npm registry, unmodified: a resumable tus 1.0 upload in
// 16 MiB PATCHes. This file is the source; `npm run build:workloads` bundles it with the
// library into examples/workloads/dist/tus-js-client.mjs, the module to run
// (a module is one file: the sink serves it alone).
import * as tus from 'tus-js-client';

export const unobserved = 1;

export default function upload({ blob, tusEndpoint, signal }) {
  return new Promise((resolve, reject) => {
    const up = new tus.Upload(blob, {
      endpoint: tusEndpoint,
      chunkSize: 16 * 1024 * 1024,
      retryDelays: [0, 500],
      // Every rep is a new upload: nothing to find in, or leave behind in, localStorage.
      storeFingerprintForResuming: false,
      onError: reject,
      onSuccess: () => resolve(),
    });
    signal.addEventListener('abort', () => up.abort(true).catch(() => {}));
    up.start();
  });
}
