/**
 * A MINTPIPE_DATA_DIR that cannot be a directory is configuration the user must change: one line
 * naming the path and the problem, exit 2, at once, through the real bin.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { makeTempDir } from '../support/test-env.js';

const dir = makeTempDir('data-dir-refusal');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'a-file');
writeFileSync(file, 'not a directory');

/** `status` on that data dir (and a private Redis there); a busy loop would meet the timeout. */
const statusOn = (dataDir: string) => runCli(['status'], { MINTPIPE_DATA_DIR: dataDir }, 15_000);

describe('a data dir that cannot be made', () => {
  it.each([
    ['under /proc, which refuses new directories', '/proc/mintpipe-nope/data', 'cannot be created (ENOENT: no such file or directory)'],
    ['under a file', join(file, 'x'), 'ENOTDIR: not a directory'],
    ['a file itself', file, 'not a directory'],
  ])('is refused in one line naming MINTPIPE_DATA_DIR, exit 2, when it is %s', async (_case, dataDir, problem) => {
    const result = await statusOn(dataDir);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`mintpipe: ${dataDir}: ${problem}`);
    expect(result.stderr).toContain('set MINTPIPE_DATA_DIR to a directory');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
  });
});
