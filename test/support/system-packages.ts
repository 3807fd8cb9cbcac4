/**
 * Every integration test runs against a real redis-server. On a fresh Debian machine, as root, it is
 * installed with apt-get the first time, so `npm install && npm test` works there as the README
 * says; elsewhere a one-line instruction. (Chromium is the browser test's own business:
 * test/support/chromium.ts.)
 */
import { spawnSync } from 'node:child_process';

const PACKAGES: Array<{ command: string; pkg: string }> = [{ command: 'redis-server', pkg: 'redis-server' }];

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export function ensureSystemPackages(): void {
  const missing = PACKAGES.filter((p) => !has(p.command)).map((p) => p.pkg);
  if (missing.length === 0) return;
  const canInstall = process.getuid?.() === 0 && has('apt-get');
  if (!canInstall) {
    throw new Error(`the tests need ${missing.join(' and ')}: install them (Debian/Ubuntu: sudo apt-get install ${missing.join(' ')})`);
  }
  process.stderr.write(`installing ${missing.join(', ')} with apt-get (first test run on this machine)\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
  const install = spawnSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'ignore', env });
  if (install.status !== 0) throw new Error(`apt-get install ${missing.join(' ')} failed; install it and run the tests again`);
}
