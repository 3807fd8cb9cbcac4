#!/usr/bin/env node
// Runs the compiled CLI in dist/ (built by `npm install` through the "prepare" script, or
// `npm run build`). TypeScript through tsx is only a fallback, for a checkout whose dist/ is
// missing or older than its sources (a developer editing src/, the tests run against an edited
// tree): a stale build must never hide a source change. MINTPIPE_USE_DIST=1 (the Docker image)
// always runs dist/ and skips the check.
// CommonJS (bin/package.json), not an ES module: Node 20 starts its ES module loader only for an
// ES module entry, ~15 ms before the first line of a three-file bin like this one runs.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { setFlagsFromString } = require('node:v8');
const { runCompiled } = require('./compiled.js');
const { compiledEntry, staleReason } = require('./dist-freshness.js');

// The heap grows by at most 20% over what survived the last full collection, instead of V8's
// default (up to 4×). An export allocates ~3 KB per row that dies within its batch (a sampling heap
// profile counting collected objects: page parsing and validation, row objects, insert text) while
// what stays alive is ~40 MB; by default the heap ran to ~260 MB for a 900k-row window. Measured on a
// 300k-row window: peak heap 166 → 96 MB, peak RSS 531 → 453 MB, CPU within noise; no
// measurable cost at start-up. Set here, before any of mintpipe's code has allocated.
setFlagsFromString('--heap-growing-percent=20');
// Node 20's fetch parses HTTP with llhttp compiled to WebAssembly, and V8 recompiles llhttp's
// functions with its optimizing compiler once they have run a little: that compile alone left a
// process ~29 MB larger (one fetch peaks at 84 MB resident, 55 MB with llhttp kept on its baseline
// code). A one-shot command parses a few responses, so the bar for that recompile is raised ~500×:
// a long-running worker that parses a lot still gets it. The export benchmark (401 pages) ran within
// noise of the default (1.81 s against 1.83 s).
setFlagsFromString('--wasm-tiering-budget=1000000000');
// V8's young generation starts small and doubles (to 16 MB per half) while a run allocates; loading
// the CLI's modules alone grew it to the full 16 MB. Held at its starting size, a one-shot export
// peaks lower (one page: ~8 MB; a 900k-row window: 422–437 MB against 461–491 MB) for more
// collector work (that window: 15.3–16.0 s against 13.3–13.9 s). Commands that run for long and
// do the steady work (start, worker, the dashboard, the emulator, a prompt batch) keep V8's
// default: there the collector's CPU counts, and the prompts benchmark spent ~1 s more with it.
const STEADY = new Set(['start', 'worker', 'dashboard', 'emulator', 'prompts']);
if (!STEADY.has(process.argv[2])) setFlagsFromString('--semi-space-growth-factor=1');

const root = join(__dirname, '..');
const compiled = compiledEntry(root);

function tsxAvailable() {
  try {
    require.resolve('tsx/esm/api');
    return true;
  } catch {
    return false;
  }
}

const forced = process.env.MINTPIPE_USE_DIST === '1';
const reason = forced && existsSync(compiled) ? undefined : staleReason(root);
if (reason === undefined || (existsSync(compiled) && (forced || !tsxAvailable()))) {
  runCompiled(compiled, process.argv[2]);
} else {
  if (!tsxAvailable()) {
    process.stderr.write('mintpipe: dist/ is not built and tsx is not installed: run `npm install` (or `npm run build`) in the package\n');
    process.exit(1);
  }
  // Only people at a terminal are told; piped output (tests, scripts) stays exactly the command's.
  if (process.stderr.isTTY) process.stderr.write(`mintpipe: ${reason}: running the TypeScript sources through tsx (slower start; \`npm run build\` to refresh)\n`);
  import('tsx/esm/api').then(({ register }) => {
    register();
    return import(pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href);
  });
}
