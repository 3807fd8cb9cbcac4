#!/usr/bin/env node
// Builds what the `mintpipe` command runs: the CLI bundled from the TypeScript sources by esbuild
// into one CommonJS script, dist/cli/main.cjs, with the pure-JavaScript packages inside. Node 20
// loads ES modules one file at a time (a one-shot `export --wait` read ~710 files unbundled) and
// compiles every one of them on every start; bin/mintpipe.js runs this script from V8's cached
// compiled code instead (dist/cli/cache). Lazy imports stay lazy, so `--help` still runs only
// commander's code.
//
// Left outside the bundle: packages that find files of their own at run time (native engines,
// worker-thread entry points, UI assets) or that only long-running commands load.
// Also writes dist/cli/build.json: the sources that went in (bin/dist-freshness.js compares
// their times with the build's).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');

const EXTERNAL = [
  // The embedded engine's native library (its loader finds it by package name at run time). The
  // engine's JavaScript is bundled: loaded from node_modules it took ~35 ms of compiling (34 files)
  // in every command that opens the engine. It requires TypeScript only inside a code generator
  // mintpipe never calls, which must not pull 9 MB of compiler into the bundle.
  '@chdb/*',
  'typescript',
  // msgpackr (BullMQ's) loads an optional native extension by path.
  'msgpackr',
  'msgpackr-extract',
  // pino is bundled: it starts worker threads from files of its own only for transports, and
  // mintpipe uses none (pretty lines are written in-process, src/pretty-log-line.ts). Loading it
  // from node_modules cost every command that logs ~50 ms of compiling.
  // The dashboard server and the queue UI's pages, read from their packages' folders. The board's
  // API and its BullMQ adapter are bundled, so they share the bundle's one BullMQ and ioredis
  // (the API finds the UI's folder with require.resolve, which the banner's require answers).
  'fastify',
  '@fastify/*',
  '@bull-board/fastify',
  '@bull-board/ui',
];

/**
 * `import('chdb')` bundled as the package's CommonJS entry. Its ES module entry only re-exports
 * that entry through createRequire(import.meta.url), which esbuild cannot follow.
 */
function requireEntryOf(name) {
  return {
    name: `require-entry-of-${name}`,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${name}$`) }, (args) =>
        // b.resolve runs this hook again: the second time it is left to esbuild.
        args.pluginData === name ? undefined : b.resolve(name, { kind: 'require-call', resolveDir: args.resolveDir, pluginData: name }),
      );
    },
  };
}

rmSync(join(root, 'dist'), { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  // One CommonJS script, not ES module chunks: Node 20 has no compile cache for ES modules, but a
  // script's compiled code can be kept (bin/mintpipe.js). Lazy imports stay lazy: each module
  // behind an import() runs only when that import() does (`--help` still runs only commander).
  format: 'cjs',
  // import() of a package left outside becomes require(): all of them are CommonJS, and a script
  // run from cached code cannot import().
  supported: { 'dynamic-import': false },
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // Whitespace and comments out: half the text for V8 to read and keep (and ASCII only, so one
  // byte a character). Names stay, so an unexpected error's stack still reads.
  minifyWhitespace: true,
  // Licence comments go to main.cjs.LEGAL.txt beside the bundle: the one in the text was its only
  // non-ASCII character (©), and an ASCII bundle is read without decoding (bin/compiled.js).
  legalComments: 'external',
  define: { 'import.meta.url': '__mintpipeImportMetaUrl' },
  banner: {
    js: [
      // First, so it stays the script's directive (esbuild's own comes after the banner).
      "'use strict';",
      "var __mintpipeImportMetaUrl = require('node:url').pathToFileURL(__filename).href;",
      // Counts the bundled modules a command ran (bin/compiled.js keeps the cache of the run that
      // ran the most) and lists them for test/support/module-trace.mjs when it asks (see below).
      'var __mintpipeTrace = (m) => { globalThis.__mintpipeModulesRun = (globalThis.__mintpipeModulesRun ?? 0) + 1; if (Array.isArray(globalThis.__mintpipeModuleTrace)) globalThis.__mintpipeModuleTrace.push(Object.keys(m)[0]); };',
    ].join('\n'),
  },
  plugins: [requireEntryOf('chdb')],
  sourcemap: 'linked',
  metafile: true,
  write: false,
  logLevel: 'warning',
});

// Each bundled module runs through one of esbuild's two lazy wrappers the first time it is
// needed; both report its path to the trace when one is asked for. The build fails if esbuild
// ever writes them differently, rather than trace nothing.
const WRAPPERS = [
  // var __esm=(fn,res,err)=>function __init(){if(err)throw err[0];try{return fn&&(
  [/var __esm=\((\w+),(\w+),(\w+)\)=>function __init\(\)\{if\(\3\)throw \3\[0\];try\{return \1&&\(/g, '$&__mintpipeTrace($1),'],
  // var __commonJS=(cb,mod)=>function __require(){try{return mod||(
  [/var __commonJS=\((\w+),(\w+)\)=>function __require\(\)\{try\{return \2\|\|\(/g, '$&__mintpipeTrace($1),'],
];
for (const file of result.outputFiles) {
  let text = file.text;
  if (file.path.endsWith('.cjs')) {
    // esbuild renames the wrappers' parameters when a bundled module uses the same names at its top.
    for (const [pattern, to] of WRAPPERS) {
      const found = text.match(pattern)?.length ?? 0;
      if (found !== 1) throw new Error(`bin/build.mjs: esbuild's module wrapper changed: ${pattern} found ${found} times in ${file.path}`);
      text = text.replace(pattern, to);
    }
    // bin/compiled.js reads the bundle as Latin-1, which is only the same text while it is ASCII.
    const offset = text.search(/[^\x00-\x7f]/);
    if (offset !== -1) throw new Error(`bin/build.mjs: ${file.path} is not ASCII at offset ${offset} ("${text.slice(Math.max(0, offset - 30), offset + 10)}")`);
  }
  writeFileSync(file.path, text);
}

const sources = Object.keys(result.metafile.inputs).filter((input) => !input.includes('node_modules/'));
writeFileSync(join(outdir, 'build.json'), `${JSON.stringify({ sources: sources.sort() }, null, 1)}\n`);
