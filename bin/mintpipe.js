#!/usr/bin/env node
// Runs the TypeScript CLI directly (tsx), so `npx mintpipe` works right after `npm install`
// with no build step. A compiled dist/ (npm run build, used by the Dockerfile) is preferred when present.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'src', 'cli', 'main.js');
if (process.env.MINTPIPE_USE_DIST === '1' && existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href);
}
