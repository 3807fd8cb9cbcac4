import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { staleReason } from '../../bin/dist-freshness.js';
import { fileTempDir } from '../support/test-env.js';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes a file with the given modification time (seconds since the epoch). */
function file(relative: string, mtimeSeconds: number, text = ''): void {
  const path = join(root, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  utimesSync(path, mtimeSeconds, mtimeSeconds);
}

const SOURCES = ['src/cli/main.ts', 'src/export/window.ts', 'config/index.ts'];

/** A checkout with sources and a bundle built after them from those sources. */
function builtCheckout(): void {
  root = fileTempDir('freshness');
  for (const source of SOURCES) file(source, 1000);
  for (const input of ['package-lock.json', 'node_modules/.package-lock.json', 'package.json', 'tsconfig.json', 'bin/build.mjs']) file(input, 1000);
  file('src/ops/page/index.html', 1000);
  file('dist/cli/main.cjs', 2000);
  file('dist/cli/build.json', 2000, JSON.stringify({ sources: SOURCES, packages: {} }));
}

describe('the built CLI in dist/', () => {
  it('is trusted when every source that went in is older than the build', () => {
    builtCheckout();
    expect(staleReason(root)).toBeUndefined();
  });

  it('is not trusted once a source that went in is edited after the build', () => {
    builtCheckout();
    file('src/export/window.ts', 3000);
    expect(staleReason(root)).toBe('src/export/window.ts changed since the last build');
  });

  it('is not trusted once the packages it bundles, the build script or its settings change (npm install pkg@x runs no build)', () => {
    for (const input of ['package-lock.json', 'node_modules/.package-lock.json', 'package.json', 'tsconfig.json', 'bin/build.mjs']) {
      builtCheckout();
      file(input, 3000);
      expect(staleReason(root)).toBe(`${input} changed since the last build`);
      rmSync(root, { recursive: true, force: true });
    }
    builtCheckout();
  });

  it('ignores files the build did not take in (a test helper, the dashboard page)', () => {
    builtCheckout();
    file('src/ops/page/index.html', 3000);
    file('src/scratch/notes.ts', 3000);
    expect(staleReason(root)).toBeUndefined();
  });

  it('is missing when nothing was built, or the build left no list of its sources', () => {
    builtCheckout();
    rmSync(join(root, 'dist', 'cli', 'build.json'));
    expect(staleReason(root)).toBe('dist/ is not built');
    rmSync(join(root, 'dist'), { recursive: true });
    expect(staleReason(root)).toBe('dist/ is not built');
  });

  it('is trusted in a package whose files all carry the same time (an npm tarball) or that ships no sources (the image)', () => {
    builtCheckout();
    for (const source of SOURCES) file(source, 2000);
    expect(staleReason(root)).toBeUndefined();
    rmSync(join(root, 'src'), { recursive: true });
    rmSync(join(root, 'config'), { recursive: true });
    expect(staleReason(root)).toBeUndefined();
  });
});
