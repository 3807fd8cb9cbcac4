import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../support/api-scripted-server.js';
import { testEnv } from '../support/export-stack.js';
import { runCli } from '../support/run-cli.js';
import { fileTempDir } from '../support/test-env.js';

/** A control character a terminal would obey (C0 but tab and line feed, DEL, C1). */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** Clears the screen, retitles the window (OSC … BEL), a one-byte C1 CSI, and a line break. */
const HOSTILE = 'key refused\u001b[2J\u001b]0;pwned\u0007\u009b31m\nsecond line';
const VISIBLE = String.raw`key refused\x1b[2J\x1b]0;pwned\x07\u009b31m\nsecond line`;

let upstream: ScriptedServer;
let env: Record<string, string>;

beforeAll(async () => {
  upstream = await startScriptedServer({ fallback: { status: 401, body: { error: HOSTILE } } });
  env = testEnv({ MINTLIFY_API_URL: upstream.url });
});
afterAll(async () => {
  await upstream?.close();
});

describe('terminal output is inert', () => {
  it('export --wait prints an upstream error with escape sequences visible and on one line, and status shows it the same', async () => {
    const exported = await runCli(['export', '--project', 'inert', '--from', '2026-10-01', '--to', '2026-10-02', '--wait'], env);
    expect(exported.code).toBe(1);
    expect(`${exported.stdout}${exported.stderr}`).not.toMatch(RAW_CONTROL);
    const failed = exported.stderr.split('\n').filter((line) => line.startsWith('failed visitors inert'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toContain(VISIBLE);

    const status = await runCli(['status'], env);
    expect(status.code).toBe(0);
    expect(status.stdout).not.toMatch(RAW_CONTROL);
    const run = status.stdout.split('\n').filter((line) => line.startsWith('run visitors inert'));
    expect(run).toHaveLength(1);
    expect(run[0]).toContain(VISIBLE);

    // JSON is data: the error comes back exactly as stored.
    const json = await runCli(['status', '--format', 'json'], env);
    const lastRuns = (JSON.parse(json.stdout) as { lastRuns: Array<{ project: string; error: string | null }> }).lastRuns;
    expect(lastRuns.find((r) => r.project === 'inert')?.error).toContain(HOSTILE);
  }, 120_000);

  it("query's table shows a path's control characters as escapes; json and csv keep them byte-exact", async () => {
    const sql = "SELECT concat('/docs', char(27), '[2J', char(27), ']0;pwned', char(7), unhex('C29B'), char(10), 'next') AS path";
    const table = await runCli(['query', sql], env);
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(RAW_CONTROL);
    expect(table.stdout.split('\n')).toContain(String.raw`/docs\x1b[2J\x1b]0;pwned\x07\u009b\nnext`);
    const json = await runCli(['query', sql, '--format', 'json'], env);
    expect((JSON.parse(json.stdout) as Array<{ path: string }>)[0]!.path).toBe('/docs\u001b[2J\u001b]0;pwned\u0007\u009b\nnext');
    const csv = await runCli(['query', sql, '--format', 'csv'], env);
    expect(csv.stdout).toBe('"path"\n"/docs\u001b[2J\u001b]0;pwned\u0007\u009b\nnext"\n');
  }, 60_000);

  it('a usage error quoting input with a line break and an escape sequence stays one visible line', async () => {
    const result = await runCli(['export', '--project', 'p', '--from', '2026\u001b[2J\nx', '--to', '2026-10-02'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stderr.trimEnd().split('\n')).toEqual([String.raw`mintpipe: --from: expected a date as YYYY-MM-DD, got "2026\x1b[2J\nx"`]);
  });

  it('query --csv-safe defuses formula cells of text columns and leaves numbers; it needs --format csv', async () => {
    const sql = "SELECT arrayJoin(['=1+1', '-5', '@x', 'ok']) AS cell, toInt32(-5) AS n";
    const safe = await runCli(['query', sql, '--format', 'csv', '--csv-safe'], env);
    expect(safe.code).toBe(0);
    expect(safe.stdout).toBe("cell,n\n'=1+1,-5\n'-5,-5\n'@x,-5\nok,-5\n");
    const refused = await runCli(['query', sql, '--csv-safe'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe('mintpipe: --csv-safe: only with --format csv, got --format table');
  }, 60_000);
});

describe('prompts send on a hostile prompt file', () => {
  it('shows the bytes a bad line quotes as escapes, and at most 5 bad lines then how many more (exit 2)', async () => {
    const path = join(fileTempDir('hostile-prompts'), 'prompts.jsonl');
    const hostile = 'ok\u001b]0;PWNED\u0007\u001b[2J{';
    writeFileSync(path, [hostile, ...Array.from({ length: 7 }, (_, n) => `bad${n}`)].join('\n'));
    const result = await runCli(['prompts', 'send', path], env);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      `${path}:1: not JSON (Unexpected token 'o', "${String.raw`ok\x1b]0;PWNED\x07\x1b[2J{`}" is not valid JSON)`,
      ...[0, 1, 2, 3].map((n) => `${path}:${n + 2}: not JSON (Unexpected token 'b', "bad${n}" is not valid JSON)`),
      '… and 3 more bad lines',
      `${path}: no good prompts (8 bad lines); nothing enqueued`,
    ]);
  }, 60_000);
});
