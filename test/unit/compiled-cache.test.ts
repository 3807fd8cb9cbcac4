/**
 * bin/compiled.js runs the CLI bundle from V8's cached compiled code: one cache per command,
 * written when missing, refused or covering fewer modules than the run that ends; never in the way
 * (a read-only directory, a damaged file). Each case runs a small script as a process of its own.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheName } from '../../bin/compiled.js';

const compiled = pathToFileURL(resolve('bin/compiled.js')).href;
const scratch = mkdtempSync(join(tmpdir(), 'mintpipe-compiled-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
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
globalThis.__mintpipeModulesRun = Number(process.env.MODULES);
process.stdout.write(String(square(Number(process.env.N))) + ' ' + require('node:path').basename(__filename));`,
  );
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
});
