/**
 * bin/compiled.js runs the CLI bundle from V8's cached compiled code: one cache per command,
 * written when missing, refused or covering fewer modules than the run that ends; never in the way
 * (a read-only directory, a damaged file). Each case runs a small script as a process of its own.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cacheName } from '../../bin/compiled.js';
import { fileTempDir } from '../support/test-env.js';

const compiled = pathToFileURL(resolve('bin/compiled.js')).href;
const scratch = fileTempDir('compiled');
let dirs = 0;

/** A bundle stand-in: reports the modules it "ran" (MODULES) and prints what it computed. */
function bundle(): string {
  const dir = join(scratch, `b${(dirs += 1)}`);
  mkdirSync(dir);
  const entry = join(dir, 'main.cjs');
  writeFileSync(
    entry,
    `'use strict';
const square = (n) => n * n;
(globalThis.__mintpipeModulesRun ??= {})[__filename] = Number(process.env.MODULES);
const vendor = (process.env.VENDOR ?? '').split(',').filter(Boolean).map((name) => ' ' + require('./vendor/' + name + '.cjs').twice(Number(process.env.N))).join('');
process.stdout.write(String(square(Number(process.env.N))) + ' ' + require('node:path').basename(__filename) + vendor);`,
  );
  // A vendor script (bin/build.mjs), as the bundle requires it; it requires the other one as a vendor script does.
  mkdirSync(join(dir, 'vendor'));
  for (const [name, other] of [['queue', 'zod'], ['zod', undefined]]) {
    writeFileSync(
      join(dir, 'vendor', `${name}.cjs`),
      `'use strict';
(globalThis.__mintpipeModulesRun ??= {})[__filename] = Number(process.env.VENDOR_MODULES);
const order = (globalThis.vendorRuns = (globalThis.vendorRuns ?? 0) + 1);
${other ? `const inner = require('./${other}.cjs');` : ''}
exports.twice = (n) => ${other ? `inner.twice(n) + ':' + ` : ''}String(2 * n) + ':${name}:' + order;`,
    );
  }
  return entry;
}

function run(entry: string, command: string | undefined, env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', `import { runCompiled } from '${compiled}'; runCompiled(${JSON.stringify(entry)}, ${JSON.stringify(command)});`], {
    env: { PATH: process.env.PATH, MODULES: '3', N: '7', ...env },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const cacheOf = (entry: string, name: string) => join(entry, '..', 'cache', `${name}.bin`);
const header = (file: string) => readFileSync(file).readUInt32LE(0);

describe('the compiled-code cache of the CLI bundle', () => {
  it('names a cache after the command, and anything else main', () => {
    expect(cacheName('export')).toBe('export');
    expect(cacheName('dashboard')).toBe('dashboard');
    expect(cacheName('--help')).toBe('main');
    expect(cacheName(undefined)).toBe('main');
    expect(cacheName('../../etc/passwd')).toBe('main');
  });

  it('writes the cache after a first run, with the number of modules that run ran, and runs the same from it', () => {
    const entry = bundle();
    expect(run(entry, 'export')).toEqual({ code: 0, stdout: '49 main.cjs', stderr: '' });
    const file = cacheOf(entry, 'export');
    expect(header(file)).toBe(3);
    expect(statSync(file).size).toBeGreaterThan(4);
    const written = statSync(file).mtimeMs;
    expect(run(entry, 'export', { N: '8' })).toEqual({ code: 0, stdout: '64 main.cjs', stderr: '' });
    // A run of no more modules keeps it.
    expect(statSync(file).mtimeMs).toBe(written);
  });

  it('replaces a cache written by a run that ran fewer modules (a usage error before a real export)', () => {
    const entry = bundle();
    run(entry, 'export', { MODULES: '1' });
    expect(header(cacheOf(entry, 'export'))).toBe(1);
    expect(run(entry, 'export', { MODULES: '40' }).stdout).toBe('49 main.cjs');
    expect(header(cacheOf(entry, 'export'))).toBe(40);
    run(entry, 'export', { MODULES: '2' });
    expect(header(cacheOf(entry, 'export'))).toBe(40);
  });

  it('replaces a cache V8 refuses, and a damaged one never stops the command', () => {
    const entry = bundle();
    const file = cacheOf(entry, 'query');
    mkdirSync(join(entry, '..', 'cache'));
    writeFileSync(file, Buffer.concat([Buffer.from([99, 0, 0, 0]), Buffer.from('not compiled code')]));
    expect(run(entry, 'query')).toEqual({ code: 0, stdout: '49 main.cjs', stderr: '' });
    expect(header(file)).toBe(3);
    writeFileSync(file, 'x');
    expect(run(entry, 'query')).toEqual({ code: 0, stdout: '49 main.cjs', stderr: '' });
    expect(header(file)).toBe(3);
  });

  it('runs without a cache where it cannot write one (a read-only install)', () => {
    // Tests run as root, who may write anywhere: a plain file where the cache directory would go.
    const entry = bundle();
    writeFileSync(join(entry, '..', 'cache'), 'a file, not a directory');
    expect(run(entry, 'export')).toEqual({ code: 0, stdout: '49 main.cjs', stderr: '' });
    expect(run(entry, 'export')).toEqual({ code: 0, stdout: '49 main.cjs', stderr: '' });
    expect(readFileSync(join(entry, '..', 'cache'), 'utf8')).toBe('a file, not a directory');
  });

  it('runs a vendor script the bundle requires once, from a cache of its own for the command', () => {
    const entry = bundle();
    // queue.cjs requires zod.cjs: each runs once (a second run would count 3).
    const env = { VENDOR: 'queue,zod', VENDOR_MODULES: '5' };
    expect(run(entry, 'export', env)).toEqual({ code: 0, stdout: '49 main.cjs 14:zod:2:14:queue:1 14:zod:2', stderr: '' });
    expect(header(cacheOf(entry, 'export'))).toBe(3);
    expect(header(cacheOf(entry, 'export.queue'))).toBe(5);
    expect(header(cacheOf(entry, 'export.zod'))).toBe(5);
    const written = statSync(cacheOf(entry, 'export.queue')).mtimeMs;
    expect(run(entry, 'export', { ...env, N: '8' })).toEqual({ code: 0, stdout: '64 main.cjs 16:zod:2:16:queue:1 16:zod:2', stderr: '' });
    expect(statSync(cacheOf(entry, 'export.queue')).mtimeMs).toBe(written);
    // Its count is its own: more modules in a vendor script replace that script's cache only.
    run(entry, 'export', { ...env, VENDOR_MODULES: '9' });
    expect(header(cacheOf(entry, 'export.queue'))).toBe(9);
    expect(header(cacheOf(entry, 'export'))).toBe(3);
  });
});
