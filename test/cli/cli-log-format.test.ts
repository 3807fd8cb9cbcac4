/**
 * Logs people can read (issue 11): a command run at a terminal logs pretty lines, piped it logs
 * JSON lines, LOG_FORMAT=pretty|json decides either way, and a bad LOG_FORMAT is refused like any
 * other setting. `query` at debug level logs the warehouse opening, which these tests read.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { fileTempDir } from '../support/test-env.js';

const dataDir = fileTempDir('log-format');
const env = { MINTPIPE_DATA_DIR: dataDir, LOG_LEVEL: 'debug' };
const PRETTY_OPEN = /^\d\d:\d\d:\d\d\.\d{3} DEBUG warehouse open engine=embedded database=mintpipe location=\S+ ms=\d+$/m;

/** Runs `mintpipe …` on a pseudo-terminal (util-linux `script`), as a person at a terminal would. */
function onTerminal(args: string[], extraEnv: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const command = ['node', 'bin/mintpipe.js', ...args].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'dumb', NO_COLOR: '1', ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output: output.replace(/\r/g, '') }));
  });
}

describe('log lines', () => {
  it('are JSON lines when stderr is piped', async () => {
    const result = await runCli(['query', 'SELECT 1'], env);
    expect(result.code).toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(lines.map((line) => (JSON.parse(line) as { event?: string }).event)).toContain('warehouse.open');
  });

  it('are pretty single lines at a terminal', async () => {
    const result = await onTerminal(['query', 'SELECT 1'], env);
    expect(result.code).toBe(0);
    expect(result.output).toMatch(PRETTY_OPEN);
    expect(result.output).not.toMatch(/^\{"level"/m);
  });

  it('are pretty when LOG_FORMAT=pretty, even piped', async () => {
    const result = await runCli(['query', 'SELECT 1'], { ...env, LOG_FORMAT: 'pretty' });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(PRETTY_OPEN);
    expect(result.stderr).not.toContain('\u001b[');
  });

  it('are JSON lines when LOG_FORMAT=json, even at a terminal', async () => {
    const result = await onTerminal(['query', 'SELECT 1'], { ...env, LOG_FORMAT: 'json' });
    expect(result.code).toBe(0);
    expect(result.output).toMatch(/^\{"level":20,.*"event":"warehouse\.open"/m);
    expect(result.output).not.toMatch(PRETTY_OPEN);
  });

  it('a LOG_FORMAT that is neither exits 2 with one line naming it', async () => {
    const result = await runCli(['query', 'SELECT 1'], { ...env, LOG_FORMAT: 'yaml' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('mintpipe: LOG_FORMAT: expected pretty or json, got "yaml"\n');
    expect(result.stdout).toBe('');
  });
});
