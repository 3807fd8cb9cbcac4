#!/usr/bin/env node
// Builds what the `mintpipe` command runs: the CLI bundled from the TypeScript sources by esbuild
// into dist/cli/ (main.js and the chunks its lazy imports load), with the pure-JavaScript
// packages inside. Node 20 loads ES modules one file at a time: a one-shot `export --wait` read
// ~710 files (bullmq 172, zod 95, semver 46, ours 126…); bundled, it reads ~160 (bench:cli: one
// page 1.39 → 1.20 s median, with the other changes of that work). Lazy imports stay lazy (each is
// a chunk of its own), so `--help` still loads only commander's code.
//
// Left outside the bundle: packages that find files of their own at run time (native engines,
// worker-thread entry points, UI assets) or that only long-running commands load.
// Also writes dist/cli/build.json: the sources that went in (bin/dist-freshness.js compares
// their times with the build's) and which packages each output file carries (for the tests that
// check what a command loads).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');

const EXTERNAL = [
  // The embedded engine: a native library, and the client copy it is typed against.
  'chdb',
  'chdb/*',
  '@chdb/*',
  // msgpackr (BullMQ's) loads an optional native extension by path.
  'msgpackr',
  'msgpackr-extract',
  // pino starts worker threads from files of its own.
  'pino',
  'pino-*',
  'thread-stream',
  // The dashboard server and the queue UI's pages, read from their packages' folders. The board's
  // API and its BullMQ adapter are bundled, so they share the bundle's one BullMQ and ioredis
  // (the API finds the UI's folder with require.resolve, which the banner's require answers).
  'fastify',
  '@fastify/*',
  '@bull-board/fastify',
  '@bull-board/ui',
];

rmSync(join(root, 'dist'), { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  chunkNames: 'chunk-[hash]',
  // CommonJS packages inside an ES module bundle still call require() for Node's own modules.
  // __filename and __dirname too: bundled ioredis reads its version from a path beside its own file.
  banner: {
    js: [
      "import { createRequire as __mintpipeRequire } from 'node:module';",
      "import { dirname as __mintpipeDirname } from 'node:path';",
      "import { fileURLToPath as __mintpipeFileURLToPath } from 'node:url';",
      'const require = __mintpipeRequire(import.meta.url);',
      'const __filename = __mintpipeFileURLToPath(import.meta.url);',
      'const __dirname = __mintpipeDirname(__filename);',
    ].join(' '),
  },
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});

/** `node_modules/@scope/name/…` or `node_modules/name/…` → the package's name. */
function packageOf(input) {
  const at = input.lastIndexOf('node_modules/');
  if (at < 0) return undefined;
  return /^(@[^/]+\/[^/]+|[^/]+)/.exec(input.slice(at + 'node_modules/'.length))?.[1];
}

const sources = Object.keys(result.metafile.inputs).filter((input) => !input.includes('node_modules/'));
const packages = {};
for (const [output, { inputs }] of Object.entries(result.metafile.outputs)) {
  if (!output.endsWith('.js')) continue;
  packages[relative(outdir, join(root, output))] = [...new Set(Object.keys(inputs).map(packageOf).filter(Boolean))].sort();
}
writeFileSync(join(outdir, 'build.json'), `${JSON.stringify({ sources: sources.sort(), packages }, null, 1)}\n`);
