/**
 * The documented command table, walked through the real bin (bin/mintpipe.js) as a user types it:
 * not the functions behind the commands. Nothing runs the queues here, so what is enqueued stays
 * queued and `export cancel` has something to remove.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNPACED_ENV } from '../support/test-env.js';
import { openCliStack, type CliStack } from '../support/test-stack.js';
import { runCli, type CliResult } from '../support/run-cli.js';

let cli: CliStack | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  const stack = await openCliStack({ emulator: {}, env: { ...UNPACED_ENV, LOG_LEVEL: 'warn' } });
  env = stack.env;
  cli = stack;
});
afterAll(() => cli?.close());

const mintpipe = (...args: string[]): Promise<CliResult> => runCli(args, env);

/** Enqueues the three October days of `project` with no worker running; they stay queued. */
async function enqueueThreeDays(project: string): Promise<CliResult> {
  const result = await mintpipe('export', '--project', project, '--from', '2026-10-01', '--to', '2026-10-04');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('enqueued 3 window(s)');
  return result;
}

describe('the command table through the bin', () => {
  it('export without --wait says on stderr that no worker serves the export queue, and offers --wait only to a shell that has a key', async () => {
    const result = await enqueueThreeDays('table-hint');
    expect(result.stderr).toMatch(/^no worker serves the export queue yet: the windows run once .*, or pass --wait$/m);
    const { MINTLIFY_API_KEY: _key, ...keyless } = env;
    const withoutKey = await runCli(['export', '--project', 'table-hint-keyless', '--from', '2026-10-01', '--to', '2026-10-02'], keyless);
    expect(withoutKey.code).toBe(0);
    expect(withoutKey.stderr).toMatch(/^no worker serves the export queue yet: .*, or set MINTLIFY_API_KEY in this shell and pass --wait$/m);
  });

  it('export cancel takes --project P after cancel, --project=P, and --project before cancel', async () => {
    for (const [i, form] of [['cancel', '--project', 'tc-a'], ['cancel', '--project=tc-b'], ['--project', 'tc-c', 'cancel']].entries()) {
      const project = ['tc-a', 'tc-b', 'tc-c'][i]!;
      await enqueueThreeDays(project);
      const result = await mintpipe('export', ...form);
      expect({ form: form.join(' '), code: result.code, stderr: result.stderr }).toEqual({ form: form.join(' '), code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^removed 3 queued window\(s\)$/m);
    }
  });

  it('export cancel narrows by --dataset and a date range', async () => {
    await enqueueThreeDays('tc-range');
    const other = await mintpipe('export', 'cancel', '--project', 'tc-range', '--dataset', 'views');
    expect(other.code).toBe(0);
    expect(other.stdout).toMatch(/^removed 0 queued window\(s\)$/m);
    const range = await mintpipe('export', 'cancel', '--project', 'tc-range', '--dataset', 'visitors', '--from', '2026-10-02', '--to', '2026-10-04');
    expect(range.code).toBe(0);
    expect(range.stdout).toMatch(/^removed 2 queued window\(s\)$/m);
    expect(range.stdout).not.toContain('2026-10-01..2026-10-02');
  });

  it('export cancel without a project is one usage line, exit 2', async () => {
    const result = await mintpipe('export', 'cancel');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('mintpipe: --project: required (a Mintlify project id)\n');
  });

  it('export cancel refuses the date ranges export refuses, with the same line, exit 2', async () => {
    const reversed = ['--from', '2026-10-04', '--to', '2026-10-01'];
    const unreal = ['--from', '2026-02-30', '--to', '2026-03-02'];
    for (const dates of [reversed, unreal]) {
      const cancel = await mintpipe('export', 'cancel', '--project', 'tc-dates', ...dates);
      const exported = await mintpipe('export', '--project', 'tc-dates', ...dates);
      expect({ dates, code: cancel.code, stderr: cancel.stderr, stdout: cancel.stdout }).toEqual({ dates, code: 2, stderr: exported.stderr, stdout: '' });
      expect(exported.code).toBe(2);
    }
    const fromOnly = await mintpipe('export', 'cancel', '--project', 'tc-dates', '--from', '2026-10-01');
    expect({ code: fromOnly.code, stderr: fromOnly.stderr }).toEqual({ code: 2, stderr: 'mintpipe: --to: required with --from (YYYY-MM-DD, exclusive)\n' });
    const toOnly = await mintpipe('export', 'cancel', '--project', 'tc-dates', '--to', '2026-10-01');
    expect({ code: toOnly.code, stderr: toOnly.stderr }).toEqual({ code: 2, stderr: 'mintpipe: --from: required with --to (YYYY-MM-DD)\n' });
  });

  it('plan says a usage error in its flags without reaching Redis, an unknown option first', async () => {
    // Nothing listens on port 9: a plan that went to Redis first would fail there instead.
    const offline = { ...env, REDIS_URL: 'redis://127.0.0.1:9' };
    for (const [args, line] of [
      [['--project', 'tc', '--from', '2026-10-03', '--to', '2026-10-01'], 'mintpipe: --to: 2026-10-01 must be after --from 2026-10-03 (--to is exclusive)'],
      [['--project', '..', '--from', '2026-10-01', '--to', '2026-10-02'], 'mintpipe: --project: ".." cannot be a project id (not a URL path segment)'],
      // An unknown option is named, not a missing --from.
      [['--bogus'], "mintpipe plan: unknown option '--bogus'"],
      [['--project', 'tc'], 'mintpipe: --from: required (YYYY-MM-DD)'],
    ] as const) {
      const result = await runCli(['plan', ...args], offline);
      expect({ code: result.code, stderr: result.stderr.trim() }).toEqual({ code: 2, stderr: line });
    }
  });

  it('export --dry-run and plan print what the work costs', async () => {
    const dry = await mintpipe('export', '--dry-run', '--project', 'tc-plan', '--from', '2026-10-01', '--to', '2026-10-04');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/request/);
    // Never exported: every estimate is a guess, and says so.
    const plan = await mintpipe('plan', '--project', 'tc-plan', '--from', '2026-10-01', '--to', '2026-10-04', '--dataset', 'visitors', '--format', 'json');
    expect(plan.code).toBe(0);
    expect((JSON.parse(plan.stdout) as { datasets: unknown[] }).datasets).toEqual([expect.objectContaining({ dataset: 'visitors', windows: 3, basis: 'guess' })]);
    // Without --project, and nothing running: MINTPIPE_PROJECTS.
    const byEnv = await runCli(['plan', '--from', '2026-10-01', '--to', '2026-10-02', '--dataset', 'visitors', '--format', 'json'], { ...env, MINTPIPE_PROJECTS: 'tc-env-a,tc-env-b' });
    expect(byEnv.code).toBe(0);
    expect((JSON.parse(byEnv.stdout) as { windows: number }).windows).toBe(2);
  });

  it('prompts send, status, resend, cancel and recover', async () => {
    const file = join(env.MINTPIPE_DATA_DIR!, '..', `prompts-${env.MINTPIPE_QUEUE_PREFIX}.jsonl`);
    writeFileSync(file, `${JSON.stringify({ projectId: 'tc-prompts', jobId: 'job-1', prompt: 'hello' })}\n`);
    const sent = await mintpipe('prompts', 'send', file);
    expect(sent.code).toBe(0);
    const batch = /^batch (\S+):/m.exec(sent.stdout)?.[1];
    expect(batch).toBeDefined();
    const status = await mintpipe('prompts', 'status', batch!);
    expect({ code: status.code, stderr: status.stderr }).toEqual({ code: 0, stderr: '' });
    const resend = await mintpipe('prompts', 'resend', batch!, '--ambiguous');
    expect(resend.code).toBe(0);
    expect(resend.stdout).toContain('nothing to resend');
    const cancel = await mintpipe('prompts', 'cancel', batch!);
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toMatch(/1 prompt\(s\) cancelled/);
    const recover = await mintpipe('prompts', 'recover', batch!);
    expect(recover.code).toBe(0);
    expect(recover.stdout).toContain(`batch ${batch}: still in Redis`);
  });
});
