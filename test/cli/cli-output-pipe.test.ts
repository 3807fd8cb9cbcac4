/**
 * What a command prints reaches a slow reader whole (the process waits for its pipe before it
 * exits), and a reader that stops early ends it quietly: exit 0, no EPIPE stack trace.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fileTempDir } from '../support/test-env.js';

const dataDir = fileTempDir('pipe');
const ROWS = 300_000;

function query(onStdout: (child: ReturnType<typeof spawn>) => void) {
  const child = spawn(process.execPath, ['bin/mintpipe.js', 'query', `SELECT number FROM numbers(${ROWS})`, '--format', 'csv', '--max-rows', String(ROWS)], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, MINTPIPE_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  onStdout(child);
  return new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

describe('output into a pipe', () => {
  it('reaches a reader that only starts reading after a while, every line of it', async () => {
    let lines = 0;
    const result = await query((child) => {
      child.stdout!.pause();
      setTimeout(() => {
        child.stdout!.on('data', (d: Buffer) => (lines += d.toString().split('\n').length - 1));
        child.stdout!.resume();
      }, 1500);
    });
    expect(result).toEqual({ code: 0, stderr: '' });
    expect(lines).toBe(ROWS + 1);
  }, 60_000);

  it('stops quietly when the reader goes away after the first lines (as `| head` does)', async () => {
    const result = await query((child) => {
      child.stdout!.once('data', () => child.stdout!.destroy());
    });
    expect(result).toEqual({ code: 0, stderr: '' });
  }, 60_000);
});
