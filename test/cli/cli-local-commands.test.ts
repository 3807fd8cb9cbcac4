/**
 * Commands that never call the API (query, status, plan) work whatever MINTLIFY_API_KEY holds —
 * unset or malformed — while a command that calls it still refuses a malformed key in one line.
 */
import { describe, expect, it } from 'vitest';
import { testEnv } from '../support/export-stack.js';
import { runCli } from '../support/run-cli.js';

const MALFORMED = 'not-a-mintlify-key-3f9c';

describe('local commands without a usable key', () => {
  for (const [label, key] of [
    ['unset', undefined],
    ['malformed', MALFORMED],
  ] as const) {
    it(`query, status and plan work with MINTLIFY_API_KEY ${label}`, async () => {
      const env = { ...testEnv(), MINTLIFY_API_KEY: key };
      const query = await runCli(['query', 'SELECT 1 AS one', '--format', 'json'], env);
      expect({ code: query.code, stderr: query.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(query.stdout)).toEqual([{ one: 1 }]);
      const status = await runCli(['status'], env);
      expect({ code: status.code, stderr: status.stderr }).toEqual({ code: 0, stderr: '' });
      const plan = await runCli(['plan', '--project', 'local', '--from', '2026-10-01', '--to', '2026-10-02', '--dataset', 'visitors'], env);
      expect({ code: plan.code, stderr: plan.stderr }).toEqual({ code: 0, stderr: '' });
      for (const out of [query, status, plan]) expect(`${out.stdout}${out.stderr}`).not.toContain(MALFORMED);
    });
  }

  it('a command that calls the API still refuses a malformed key in one line, exit 2', async () => {
    const result = await runCli(['export', '--project', 'local', '--from', '2026-10-01', '--to', '2026-10-02'], { ...testEnv(), MINTLIFY_API_KEY: MALFORMED });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('mintpipe: MINTLIFY_API_KEY: must be a Mintlify admin key starting with "mint_"\n');
  });
});
