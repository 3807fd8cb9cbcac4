import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/logger.js';
import { DashboardTokenError, resolveDashboardToken } from '../../src/ops/dashboard-token.js';
import { fileTempDir } from '../support/test-env.js';


/** A logger that keeps what it was told. */
function recorder(): { warn(fields: Record<string, unknown>, message: string): void; lines: string[] } {
  const lines: string[] = [];
  return { lines, warn: (fields, message) => lines.push(`${JSON.stringify(fields)} ${message}`) };
}

describe('the dashboard token', () => {
  it('is MINTPIPE_DASHBOARD_TOKEN when set, and then no file is made', () => {
    const dataDir = fileTempDir('token');
    expect(resolveDashboardToken({ configured: ' set-by-the-user-0123 ', dataDir })).toEqual({ value: 'set-by-the-user-0123', origin: 'setting' });
    expect(existsSync(join(dataDir, 'dashboard-token'))).toBe(false);
  });

  it('is generated without it: 24 random bytes as hex, in a new 0600 file, and registered as a secret', () => {
    const dataDir = fileTempDir('token');
    const token = resolveDashboardToken({ dataDir });
    const file = join(dataDir, 'dashboard-token');
    expect(token).toEqual({ value: expect.stringMatching(/^[0-9a-f]{48}$/), origin: 'generated', file });
    expect(readFileSync(file, 'utf8')).toBe(`${token.value}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(redactSecrets(`token=${token.value}`)).not.toContain(token.value);
  });

  it('is reused from the file at every later start', () => {
    const dataDir = fileTempDir('token');
    const first = resolveDashboardToken({ dataDir }).value;
    expect(resolveDashboardToken({ dataDir }).value).toBe(first);
    expect(resolveDashboardToken({ dataDir }).value).toBe(first);
  });

  it('makes the data dir private when it makes it', () => {
    const dataDir = join(fileTempDir('token'), 'new', 'data');
    resolveDashboardToken({ dataDir });
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it('replaces a file other local users could read, with a warning naming the file and not the token', () => {
    const dataDir = fileTempDir('token');
    const old = resolveDashboardToken({ dataDir }).value;
    const file = join(dataDir, 'dashboard-token');
    chmodSync(file, 0o644);
    const logger = recorder();
    const token = resolveDashboardToken({ dataDir, logger }).value;
    expect(token).not.toBe(old);
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toContain('dashboard_token_replaced');
    expect(logger.lines[0]).toContain(file);
    expect(logger.lines[0]).toContain('0644');
    expect(logger.lines.join('')).not.toContain(old);
    expect(logger.lines.join('')).not.toContain(token);
  });

  it('replaces a file another user owns (one they may have written; runs as root, as CI does)', () => {
    const dataDir = fileTempDir('token');
    const file = join(dataDir, 'dashboard-token');
    writeFileSync(file, `${'c'.repeat(48)}\n`, { mode: 0o600 });
    chownSync(file, 65_534, 65_534);
    const logger = recorder();
    expect(resolveDashboardToken({ dataDir, logger }).value).not.toBe('c'.repeat(48));
    expect(statSync(file).uid).toBe(0);
    expect(logger.lines[0]).toContain('owned by uid 65534');
  });

  it('replaces a file that holds no token of its own making', () => {
    for (const content of ['', 'hunter2\n', `${'A'.repeat(48)}\n`, `${'a'.repeat(47)}\n`]) {
      const dataDir = fileTempDir('token');
      writeFileSync(join(dataDir, 'dashboard-token'), content, { mode: 0o600 });
      const logger = recorder();
      const token = resolveDashboardToken({ dataDir, logger }).value;
      expect(token, JSON.stringify(content)).toMatch(/^[0-9a-f]{48}$/);
      expect(readFileSync(join(dataDir, 'dashboard-token'), 'utf8')).toBe(`${token}\n`);
      expect(logger.lines[0]).toContain('holds no token');
    }
  });

  it('replaces a symlink with a file of its own and leaves what it pointed to alone', () => {
    const dataDir = fileTempDir('token');
    const elsewhere = join(fileTempDir('token'), 'planted');
    writeFileSync(elsewhere, `${'b'.repeat(48)}\n`, { mode: 0o600 });
    symlinkSync(elsewhere, join(dataDir, 'dashboard-token'));
    const logger = recorder();
    const token = resolveDashboardToken({ dataDir, logger }).value;
    expect(token).not.toBe('b'.repeat(48));
    expect(readFileSync(elsewhere, 'utf8')).toBe(`${'b'.repeat(48)}\n`);
    expect(readFileSync(join(dataDir, 'dashboard-token'), 'utf8')).toBe(`${token}\n`);
    expect(logger.lines[0]).toContain('symlink');
  });

  it('refuses, in one line naming the path, when a directory sits where the token goes', () => {
    const dataDir = fileTempDir('token');
    mkdirSync(join(dataDir, 'dashboard-token'));
    let caught: unknown;
    try {
      resolveDashboardToken({ dataDir });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DashboardTokenError);
    expect((caught as Error).message).toContain(join(dataDir, 'dashboard-token'));
    expect((caught as Error).message).not.toContain('\n');
  });
});
