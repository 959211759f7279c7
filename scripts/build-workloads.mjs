// Bundles workload modules that import packages into one file each (the sink serves a
// module alone, so its imports must be inside it). With no arguments: the shipped
// examples that need it, into examples/workloads/dist/ (not committed). With arguments:
// `node scripts/build-workloads.mjs OUT_DIR SOURCE...`, as the tests use it.
// The libraries come from node_modules as npm installed them (package-lock.json), unmodified.
import { build } from 'esbuild';
import { basename, join } from 'node:path';

const [outDir, ...sources] = process.argv.length > 2
  ? process.argv.slice(2)
  : ['examples/workloads/dist', 'examples/workloads/tus-js-client.mjs'];

for (const source of sources) {
  const outfile = join(outDir, basename(source));
  await build({
    entryPoints: [source],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    legalComments: 'inline',
    logLevel: 'warning',
  });
  process.stdout.write(`${outfile}\n`);
}
