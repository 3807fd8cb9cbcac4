#!/usr/bin/env node
// Runs the compiled CLI in dist/ (built by `npm install` through the "prepare" script, or
// `npm run build`). TypeScript through tsx is only a fallback, for a checkout whose dist/ is
// missing or older than its sources (a developer editing src/, the tests run against an edited
// tree): a stale build must never hide a source change. MINTPIPE_USE_DIST=1 (the Docker image)
// always runs dist/ and skips the check.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runCompiled } from './compiled.js';
import { compiledEntry, staleReason } from './dist-freshness.js';

// The heap grows by at most 20% over what survived the last full collection, instead of V8's
// default (up to 4×). An export allocates ~3 KB per row that dies within its batch (a sampling heap
// profile counting collected objects: page parsing and validation, row objects, insert text) while
// what stays alive is ~40 MB; by default the heap ran to ~260 MB for a 900k-row window. Measured on a
// 300k-row window: peak heap 166 → 96 MB, peak RSS 531 → 453 MB, CPU within noise; no
// measurable cost at start-up. Set here, before any of mintpipe's code has allocated.
setFlagsFromString('--heap-growing-percent=20');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = compiledEntry(root);

function tsxAvailable() {
  try {
    createRequire(import.meta.url).resolve('tsx/esm/api');
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
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href);
}
