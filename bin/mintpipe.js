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
import { compiledEntry, staleReason } from './dist-freshness.js';

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
  await import(pathToFileURL(compiled).href);
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
