#!/usr/bin/env node
// Runs the compiled CLI in dist/ (built by `npm install` through the "prepare" script, or
// `npm run build`). TypeScript through tsx is only a fallback, for a checkout whose dist/ is
// missing or older than its sources (a developer editing src/, the tests run against an edited
// tree): a stale build must never hide a source change. MINTPIPE_USE_DIST=1 (the Docker image)
// always runs dist/ and skips the check.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'src', 'cli', 'main.js');

/** Directories tsconfig.build.json compiles into dist/. */
const SOURCE_DIRS = ['src', 'config', 'jobs'];

/**
 * Why dist/ cannot be trusted, or undefined when it can: a .ts source without its .js, or one
 * modified after it. ~250 files, two stats each (a few ms). An installed package whose files all
 * carry the same time (npm tarballs) or has no sources (the image) counts as built.
 */
function staleReason() {
  if (!existsSync(compiled)) return 'dist/ is not built';
  for (const dir of SOURCE_DIRS) {
    const found = newerSource(dir);
    if (found) return `${found} changed since the last build`;
  }
  return undefined;
}

function newerSource(relativeDir) {
  let entries;
  try {
    entries = readdirSync(join(root, relativeDir), { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const relative = join(relativeDir, entry.name);
    if (entry.isDirectory()) {
      const found = newerSource(relative);
      if (found) return found;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const output = statSync(join(root, 'dist', relative.slice(0, -3) + '.js'), { throwIfNoEntry: false });
      if (!output || statSync(join(root, relative)).mtimeMs > output.mtimeMs) return relative;
    }
  }
  return undefined;
}

function tsxAvailable() {
  try {
    createRequire(import.meta.url).resolve('tsx/esm/api');
    return true;
  } catch {
    return false;
  }
}

const forced = process.env.MINTPIPE_USE_DIST === '1';
const reason = forced && existsSync(compiled) ? undefined : staleReason();
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
