// Runs the CLI bundle (dist/cli/main.cjs, bin/build.mjs) from V8's cached compiled code when there
// is some. Node 20 compiles every module on every start (Node 22 has a compile cache; 20 does not):
// for a one-shot `export --wait` that was about a fifth of its time. A script's compiled code, taken
// after a run, covers every function that run used, so the next run of the same command skips
// compiling them. One cache per command (`export`, `query` …), in dist/cli/cache beside the bundle.
// A run writes it when there is none, when V8 refuses it (another build, another Node) or when the
// run ran more of the bundle's modules than the run that wrote it (a usage error's cache would
// otherwise serve every later `export`). The cache is only ever an optimisation: unreadable,
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
  // The build writes ASCII only (bin/build.mjs checks), so Latin-1 reads the same text as UTF-8
  // without decoding it: ~25 ms less per start for 3.3 MB, measured 26–41 ms against 1–4 ms warm.
  const source = readFileSync(entry, 'latin1');
  const cacheFile = join(dirname(entry), 'cache', `${cacheName(command)}.bin`);
  const cache = readCache(cacheFile);
  const script = new Script(Module.wrap(source), { filename: entry, cachedData: cache?.data });
  // Only the count is kept: the cached data itself is V8's now.
  const cachedModules = cache !== undefined && !script.cachedDataRejected ? cache.modules : -1;
  process.once('exit', () => {
    // At exit, when every function this command ran has been compiled.
    const modules = globalThis.__mintpipeModulesRun ?? 0;
    if (modules > cachedModules) writeCache(cacheFile, modules, script.createCachedData());
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(entry), module, entry, dirname(entry));
}

module.exports = { cacheName, runCompiled };
