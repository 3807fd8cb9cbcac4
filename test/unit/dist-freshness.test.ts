import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { staleReason } from '../../bin/dist-freshness.js';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes a file with the given modification time (seconds since the epoch). */
function file(relative: string, mtimeSeconds: number): void {
  const path = join(root, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '');
  utimesSync(path, mtimeSeconds, mtimeSeconds);
}

/** A checkout with sources and a build made after them. */
function builtCheckout(): void {
  root = mkdtempSync(join(tmpdir(), 'mintpipe-freshness-'));
  file('src/cli/main.ts', 1000);
  file('src/export/window.ts', 1000);
  file('config/index.ts', 1000);
  file('src/ops/page/index.html', 1000);
  file('dist/src/cli/main.js', 2000);
  file('dist/src/export/window.js', 2000);
  file('dist/config/index.js', 2000);
}

describe('the compiled CLI in dist/', () => {
  it('is trusted when every source has its output, built after it', () => {
    builtCheckout();
    expect(staleReason(root)).toBeUndefined();
  });

  it('is not trusted once a source is edited after the build', () => {
    builtCheckout();
    file('src/export/window.ts', 3000);
    expect(staleReason(root)).toBe('src/export/window.ts changed since the last build');
  });

  it('is not trusted when a source has no output (a file added since the build)', () => {
    builtCheckout();
    file('config/new-setting.ts', 1000);
    expect(staleReason(root)).toBe('config/new-setting.ts changed since the last build');
  });

  it('is missing when nothing was built', () => {
    builtCheckout();
    rmSync(join(root, 'dist'), { recursive: true });
    expect(staleReason(root)).toBe('dist/ is not built');
  });

  it('is trusted in a package whose files all carry the same time (an npm tarball) or that ships no sources (the image)', () => {
    builtCheckout();
    for (const f of ['src/cli/main.ts', 'src/export/window.ts', 'config/index.ts']) file(f, 2000);
    expect(staleReason(root)).toBeUndefined();
    rmSync(join(root, 'src'), { recursive: true });
    rmSync(join(root, 'config'), { recursive: true });
    expect(staleReason(root)).toBeUndefined();
  });
});
