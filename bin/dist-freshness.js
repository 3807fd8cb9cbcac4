// Whether dist/ (tsc -p tsconfig.build.json) still matches the TypeScript sources beside it: shared
// by bin/mintpipe.js (which runs the sources through tsx when it does not) and the benchmarks.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Directories tsconfig.build.json compiles into dist/. */
const SOURCE_DIRS = ['src', 'config', 'jobs'];

/** The entry point of the compiled CLI under `root`. */
export function compiledEntry(root) {
  return join(root, 'dist', 'src', 'cli', 'main.js');
}

/**
 * Why dist/ cannot be trusted, or undefined when it can: no build, or a .ts source without its .js
 * or modified after it. ~250 files, two stats each (a few ms). An installed package whose files all
 * carry the same time (npm tarballs) or that has no sources (the image) counts as built.
 */
export function staleReason(root) {
  if (!existsSync(compiledEntry(root))) return 'dist/ is not built';
  for (const dir of SOURCE_DIRS) {
    const found = newerSource(root, dir);
    if (found) return `${found} changed since the last build`;
  }
  return undefined;
}

function newerSource(root, relativeDir) {
  let entries;
  try {
    entries = readdirSync(join(root, relativeDir), { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const relative = join(relativeDir, entry.name);
    if (entry.isDirectory()) {
      const found = newerSource(root, relative);
      if (found) return found;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const output = statSync(join(root, 'dist', `${relative.slice(0, -3)}.js`), { throwIfNoEntry: false });
      if (!output || statSync(join(root, relative)).mtimeMs > output.mtimeMs) return relative;
    }
  }
  return undefined;
}
