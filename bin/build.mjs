#!/usr/bin/env node
// Builds what the `mintpipe` command runs: the CLI bundled from the TypeScript sources by esbuild
// into a CommonJS script, dist/cli/main.cjs, with the pure-JavaScript packages inside (the biggest
// as scripts of their own in dist/cli/vendor, read only by the commands that use them: VENDORS).
// Node 20 loads ES modules one file at a time (a one-shot `export --wait` read ~710 files
// unbundled) and compiles every one of them on every start; bin/mintpipe.js runs these scripts
// from V8's cached compiled code instead (dist/cli/cache). Lazy imports stay lazy, so `--help` still runs only
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
  // The optional native extension of msgpackr (BullMQ's packer), found by path at run time. The CLI
  // turns it off (vendor/queue.cjs): loading it cost a command that uses BullMQ ~12 ms, for faster
  // unpacking of large strings, where BullMQ packs a few small job options. msgpackr itself is
  // bundled.
  'msgpackr-extract',
  // pino is bundled: it starts worker threads from files of its own only for transports, and
  // mintpipe uses none (pretty lines are written in-process, src/pretty-log-line.ts). Loading it
  // from node_modules cost every command that logs ~50 ms of compiling.
  // The dashboard server and the queue UI's pages, read from their packages' folders. The board's
  // API and its BullMQ adapter are bundled (vendor/board.cjs), so they share the CLI's one BullMQ
  // and ioredis (the API finds the UI's folder with require.resolve, which bin/compiled.js answers).
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

/**
 * Packages bundled into scripts of their own, dist/cli/vendor/<name>.cjs, each read and compiled (or
 * taken from its cache, bin/compiled.js) only by a command that imports it. In main.cjs they were
 * two thirds of its 3.6 MB, which every command read and turned into a string before running a
 * line: ~30 ms, where a one-shot `query` uses none of them. A package is in one script only (the
 * build fails otherwise): one BullMQ and one ioredis per process, whoever imports them.
 */
const VENDORS = {
  queue: ['bullmq', 'ioredis', 'cron-parser'],
  zod: ['zod'],
  board: ['@bull-board/api', '@bull-board/api/bullMQAdapter'],
  clickhouse: ['@clickhouse/client'],
};
const vendorOf = new Map(Object.entries(VENDORS).flatMap(([name, specifiers]) => specifiers.map((specifier) => [specifier, name])));
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * An import of a vendored package, from main.cjs or another vendor script, becomes a require of
 * the script that holds it: `module.exports = require('./vendor/queue.cjs')['bullmq']`.
 */
function routeToVendors(fromDir, except) {
  const routed = [...vendorOf.keys()].filter((specifier) => vendorOf.get(specifier) !== except);
  return {
    name: 'route-to-vendors',
    setup(b) {
      if (routed.length === 0) return;
      b.onResolve({ filter: new RegExp(`^(${routed.map(escapeRegExp).join('|')})$`) }, (args) => ({ path: args.path, namespace: 'vendor' }));
      b.onLoad({ filter: /.*/, namespace: 'vendor' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(`${fromDir}${vendorOf.get(args.path)}.cjs`)})[${JSON.stringify(args.path)}];`,
        loader: 'js',
      }));
      b.onResolve({ filter: /\.cjs$/, namespace: 'vendor' }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/**
 * Code of the vendored packages that mintpipe never runs, left out of their scripts: BullMQ's
 * Postgres backend (a third of BullMQ, re-exported by its index and required by nothing else of
 * it; mintpipe's queues are on Redis), and zod's index of its 60-odd message locales (over half
 * of zod, re-exported as \`z.locales\`, which mintpipe does not use; zod's default English
 * messages come from their own module). The script of BullMQ ran in ~75 ms instead of ~120.
 */
const LEFT_OUT = [
  { request: /^\.\/postgres$/, importer: /[\\/]node_modules[\\/]bullmq[\\/]dist[\\/]cjs[\\/]index\.js$/ },
  { request: /^\.\.\/locales\/index\.cjs$/, importer: /[\\/]node_modules[\\/]zod[\\/]v4[\\/](classic[\\/]external|core[\\/]index)\.cjs$/ },
];
const leftOut = new Set();
const leaveOut = {
  name: 'leave-out',
  setup(b) {
    for (const rule of LEFT_OUT) {
      b.onResolve({ filter: rule.request }, (args) => {
        if (!rule.importer.test(args.importer)) return undefined;
        leftOut.add(rule);
        return { path: args.path, namespace: 'left-out' };
      });
    }
    b.onLoad({ filter: /.*/, namespace: 'left-out' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

const COMMON = {
  absWorkingDir: root,
  bundle: true,
  // CommonJS scripts, not ES module chunks: Node 20 has no compile cache for ES modules, but a
  // script's compiled code can be kept (bin/compiled.js). Lazy imports stay lazy: each module
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
  // Licence comments go to <script>.LEGAL.txt beside each script: the one in the text was its only
  // non-ASCII character (©), and an ASCII script is read without decoding (bin/compiled.js).
  legalComments: 'external',
  define: { 'import.meta.url': '__mintpipeImportMetaUrl' },
  banner: {
    js: [
      // First, so it stays the script's directive (esbuild's own comes after the banner).
      "'use strict';",
      "var __mintpipeImportMetaUrl = require('node:url').pathToFileURL(__filename).href;",
      // Counts the bundled modules a command ran, per script (bin/compiled.js keeps the cache of
      // the run that ran the most) and lists them for test/support/module-trace.mjs when it asks.
      'var __mintpipeTrace = (m) => { const run = (globalThis.__mintpipeModulesRun ??= {}); run[__filename] = (run[__filename] ?? 0) + 1; if (Array.isArray(globalThis.__mintpipeModuleTrace)) globalThis.__mintpipeModuleTrace.push(Object.keys(m)[0]); };',
    ].join('\n'),
  },
  sourcemap: 'linked',
  metafile: true,
  write: false,
  logLevel: 'warning',
};

rmSync(join(root, 'dist'), { recursive: true, force: true });
mkdirSync(join(outdir, 'vendor'), { recursive: true });
const results = await Promise.all([
  build({
    ...COMMON,
    entryPoints: { main: 'src/cli/main.ts' },
    outdir,
    outExtension: { '.js': '.cjs' },
    plugins: [requireEntryOf('chdb'), routeToVendors('./vendor/')],
  }),
  ...Object.entries(VENDORS).map(([name, specifiers]) =>
    build({
      ...COMMON,
      stdin: {
        contents: [
          // Read by msgpackr when it loads (before anything below runs); a value set by the user stands.
          ...(name === 'queue' ? ["process.env.MSGPACKR_NATIVE_ACCELERATION_DISABLED ??= 'true';"] : []),
          `module.exports = { ${specifiers.map((specifier) => `${JSON.stringify(specifier)}: require(${JSON.stringify(specifier)})`).join(', ')} };`,
        ].join('\n'),
        resolveDir: root,
        sourcefile: `vendor-${name}.js`,
        loader: 'js',
      },
      outfile: join(outdir, 'vendor', `${name}.cjs`),
      plugins: [routeToVendors('./', name), leaveOut],
    }),
  ),
]);

// Each bundled module runs through one of esbuild's two lazy wrappers the first time it is
// needed; both report its path to the trace when one is asked for. The build fails if esbuild
// ever writes them differently, rather than trace nothing. (A script of CommonJS packages only
// has no __esm wrapper.)
const WRAPPERS = [
  // var __esm=(fn,res,err)=>function __init(){if(err)throw err[0];try{return fn&&(
  [/var __esm=\((\w+),(\w+),(\w+)\)=>function __init\(\)\{if\(\3\)throw \3\[0\];try\{return \1&&\(/g, '$&__mintpipeTrace($1),'],
  // var __commonJS=(cb,mod)=>function __require(){try{return mod||(
  [/var __commonJS=\((\w+),(\w+)\)=>function __require\(\)\{try\{return \2\|\|\(/g, '$&__mintpipeTrace($1),'],
];
for (const file of results.flatMap((result) => result.outputFiles)) {
  let text = file.text;
  if (file.path.endsWith('.cjs')) {
    // esbuild renames the wrappers' parameters when a bundled module uses the same names at its top.
    const found = WRAPPERS.map(([pattern]) => text.match(pattern)?.length ?? 0);
    if (found.some((n) => n > 1) || found.every((n) => n === 0)) {
      throw new Error(`bin/build.mjs: esbuild's module wrappers changed: ${WRAPPERS.map(([pattern], i) => `${pattern} found ${found[i]} times`).join(', ')} in ${file.path}`);
    }
    for (const [pattern, to] of WRAPPERS) text = text.replace(pattern, to);
    // bin/compiled.js reads the scripts as Latin-1, which is only the same text while they are ASCII.
    const offset = text.search(/[^\x00-\x7f]/);
    if (offset !== -1) throw new Error(`bin/build.mjs: ${file.path} is not ASCII at offset ${offset} ("${text.slice(Math.max(0, offset - 30), offset + 10)}")`);
  }
  writeFileSync(file.path, text);
}

// A rule that no longer matches (the package moved its files) would leave that code in, unnoticed.
for (const rule of LEFT_OUT) {
  if (!leftOut.has(rule)) throw new Error(`bin/build.mjs: nothing left out by ${rule.request} from ${rule.importer}: update LEFT_OUT`);
}

// A package in two scripts would be two copies in one process (two BullMQs, two ioredis).
const scriptOf = new Map();
for (const result of results) {
  for (const [output, { inputs }] of Object.entries(result.metafile.outputs)) {
    for (const input of Object.keys(inputs)) {
      if (!input.includes('node_modules/')) continue;
      const other = scriptOf.get(input);
      if (other !== undefined && other !== output) throw new Error(`bin/build.mjs: ${input} is bundled into both ${other} and ${output}`);
      scriptOf.set(input, output);
    }
  }
}

const sources = Object.keys(results[0].metafile.inputs).filter((input) => !input.includes('node_modules/'));
writeFileSync(join(outdir, 'build.json'), `${JSON.stringify({ sources: sources.sort() }, null, 1)}\n`);
