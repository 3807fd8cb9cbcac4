// Whether dist/ (the bundle bin/build.mjs makes) still matches the TypeScript sources it was built
// from: shared by bin/mintpipe.js (which runs the sources through tsx when it does not) and the
// benchmarks.
'use strict';
const { existsSync, readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');

/** The entry point of the built CLI under `root`. */
function compiledEntry(root) {
  return join(root, 'dist', 'cli', 'main.cjs');
}

/**
 * What else decides the bundle's contents: the packages bundled into it (an `npm install pkg@x`
 * does not run "prepare"), the build script and its settings.
 */
const BUILD_INPUTS = ['package.json', 'package-lock.json', join('node_modules', '.package-lock.json'), 'tsconfig.json', join('bin', 'build.mjs'), join('bin', 'package.json')];

/**
 * Why dist/ cannot be trusted, or undefined when it can: no build, or a source that went into it
 * or one of the build's other inputs modified after it (~200 stats, a few ms). An edited file that
 * now imports a new one is itself newer, so the list of the build's own sources is enough. An
 * installed package whose files all carry the same time (npm tarballs) or that has no sources
 * (the image) counts as built.
 */
function staleReason(root) {
  const entry = compiledEntry(root);
  const manifest = join(root, 'dist', 'cli', 'build.json');
  if (!existsSync(entry) || !existsSync(manifest)) return 'dist/ is not built';
  const builtAt = statSync(entry).mtimeMs;
  let sources;
  try {
    sources = JSON.parse(readFileSync(manifest, 'utf8')).sources;
  } catch {
    return 'dist/ is not built';
  }
  if (!Array.isArray(sources)) return 'dist/ is not built';
  for (const source of [...BUILD_INPUTS, ...sources]) {
    const stat = statSync(join(root, source), { throwIfNoEntry: false });
    if (stat && stat.mtimeMs > builtAt) return `${source} changed since the last build`;
  }
  return undefined;
}

module.exports = { compiledEntry, staleReason };
