// One name for the WebExtension API in every browser: Firefox has `browser`
// (promise-based), Chromium has `chrome` (promise-based in MV3 too).
export const api = globalThis.browser ?? globalThis.chrome;
