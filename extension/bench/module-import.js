// Imports a workload module from the local sink. This file is served by the sink to the
// benchmark page on the sink's own origin and is left out of every browser package
// (host/src/platform/extension_files.rs, SINK_ONLY), so no extension page can load code
// from elsewhere: the stores' no-remote-code rules hold for what a browser installs.
export const importModule = (url) => import(url);
