/**
 * Finds a Chromium for the dashboard's browser test: on PATH first (Debian's `chromium`, Ubuntu's
 * `chromium-browser`, `google-chrome`), then the one playwright-core installs (`npx playwright-core
 * install chromium`). Only that test needs a browser, so nothing else waits on this.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

const ON_PATH = ['chromium', 'chromium-browser', 'google-chrome'];

export type ChromiumLookup = { path: string } | { path: undefined; reason: string };

function onPath(command: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
}

export function findChromium(): ChromiumLookup {
  for (const command of ON_PATH) {
    const path = onPath(command);
    if (path) return { path };
  }
  const managed = chromium.executablePath();
  if (managed && existsSync(managed)) return { path: managed };
  return {
    path: undefined,
    reason: `no Chromium found (looked on PATH for ${ON_PATH.join(', ')} and for playwright-core's at ${managed}); install one (apt-get install chromium, or npx playwright-core install chromium)`,
  };
}
