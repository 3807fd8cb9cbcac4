// Runs the CLI bundle (dist/cli/main.cjs, bin/build.mjs) from V8's cached compiled code when there
// is some. Node 20 compiles every module on every start (Node 22 has a compile cache; 20 does not):
// for a one-shot `export --wait` that was about a fifth of its time. A script's compiled code, taken
// after a run, covers every function that run used, so the next run of the same command skips
// compiling them. One cache per command (`export`, `query` …) and script (the bundle, and each
// vendor script it requires: dist/cli/vendor, bin/build.mjs), in dist/cli/cache beside the bundle.
// A run writes a script's cache when there is none, when V8 refuses it (another build, another
// Node) or when the run ran more of that script's modules than the run that wrote it (a usage
// error's cache would otherwise serve every later `export`). The cache is only ever an optimisation: unreadable,
// unwritable (a read-only install) or refused, the bundle compiles as usual. It lives in the
// package's own directory, never a shared one: compiled code is trusted like the code itself.
'use strict';
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { createRequire, Module } = require('node:module');
const { dirname, join } = require('node:path');
const { Script } = require('node:vm');

/** The cache's name for a command line: its command, or `main` (help, a typo). */
function cacheName(command) {
  return typeof command === 'string' && /^[a-z][a-z-]{0,30}$/.test(command) ? command : 'main';
}

/** A cache file: the number of modules its run ran (4 bytes), then V8's cached data. */
function readCache(file) {
  try {
    const bytes = readFileSync(file);
    if (bytes.length <= 4) return undefined;
    return { modules: bytes.readUInt32LE(0), data: bytes.subarray(4) };
  } catch {
    return undefined;
  }
}

function writeCache(file, modules, data) {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const header = Buffer.alloc(4);
    header.writeUInt32LE(modules, 0);
    // Whole or not at all: a run reading it while it is written sees the old one or the new one.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, Buffer.concat([header, data]));
    renameSync(partial, file);
  } catch {
    // A read-only install: every run compiles, as without a cache.
  }
}

function runCompiled(entry, command) {
  // --enable-source-maps (to read an unexpected error's stack as sources) applies to required files.
  if (process.sourceMapsEnabled) {
    require(entry);
    return;
  }
  const name = cacheName(command);
  const cacheDir = join(dirname(entry), 'cache');
  const baseRequire = createRequire(entry);
  /** Scripts run so far: file → its module (whose exports a second require returns). */
  const ran = new Map();
  const caches = [];
  process.once('exit', () => {
    // At exit, when every function this command ran has been compiled.
    const counts = globalThis.__mintpipeModulesRun ?? {};
    for (const { file, script, cacheFile, cachedModules } of caches) {
      const modules = counts[file] ?? 0;
      if (modules > cachedModules) writeCache(cacheFile, modules, script.createCachedData());
    }
  });
  /**
   * Runs one script of the CLI (the bundle, or a vendor script it requires, bin/build.mjs) from its
   * cache for this command: cache/<command>.bin for the bundle, cache/<command>.<vendor>.bin.
   */
  const run = (file, cacheFile) => {
    // The build writes ASCII only (bin/build.mjs checks), so Latin-1 reads the same text as UTF-8
    // without decoding it.
    const source = readFileSync(file, 'latin1');
    const cache = readCache(cacheFile);
    const script = new Script(Module.wrap(source), { filename: file, cachedData: cache?.data });
    // Only the count is kept: the cached data itself is V8's now.
    caches.push({ file, script, cacheFile, cachedModules: cache !== undefined && !script.cachedDataRejected ? cache.modules : -1 });
    const module = { exports: {} };
    ran.set(file, module);
    script.runInThisContext()(module.exports, scriptRequire, module, file, dirname(file));
    return module.exports;
  };
  const vendorDir = join(dirname(entry), 'vendor');
  // The scripts' require: a vendor script (`./vendor/queue.cjs` from the bundle, `./queue.cjs` from
  // another vendor script) runs from its cache; anything else is Node's require from the bundle.
  function scriptRequire(id) {
    const vendor = /^\.\/(?:vendor\/)?([a-z]+)\.cjs$/.exec(id)?.[1];
    if (vendor === undefined) return baseRequire(id);
    const file = join(vendorDir, `${vendor}.cjs`);
    return ran.get(file)?.exports ?? run(file, join(cacheDir, `${name}.${vendor}.bin`));
  }
  scriptRequire.resolve = baseRequire.resolve;
  scriptRequire.cache = baseRequire.cache;
  scriptRequire.main = baseRequire.main;
  run(entry, join(cacheDir, `${name}.bin`));
}

module.exports = { cacheName, runCompiled };
