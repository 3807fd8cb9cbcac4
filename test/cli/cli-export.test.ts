import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { QUEUE_NAMES, queueKeyPrefix } from '../../src/queue/queue-names.js';
import { openQueue } from '../../src/queue/queues.js';
import { createRedisConnection } from '../../src/queue/redis-connection.js';
import { randomPrefix, UNPACED_ENV } from '../support/test-env.js';
import { openCliStack, type CliStack } from '../support/test-stack.js';
import { runCli, startCli } from '../support/run-cli.js';
import { until } from '../support/wait.js';

let cli: CliStack | undefined;
let emulator: RunningEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  const stack = await openCliStack({ emulator: {}, env: { ...UNPACED_ENV, LOG_LEVEL: 'warn' } });
  ({ emulator, env } = stack);
  cli = stack;
});
afterAll(() => cli?.close());

describe('mintpipe export and query (CLI)', () => {
  it('exports three days with --wait, then query shows their rows; --grain range adds the range as its own window', async () => {
    const days = await runCli(['export', '--project', 'acme', '--from', '2026-10-01', '--to', '2026-10-04', '--grain', 'day', '--wait'], env);
    expect(days.stderr).not.toMatch(/error/i);
    expect(days.code).toBe(0);
    const expectedDays = ['2026-10-01', '2026-10-02', '2026-10-03'].reduce(
      (sum, d, i, all) => sum + emulator.control.window('acme', d, i + 1 < all.length ? all[i + 1]! : '2026-10-04').visitors.length,
      0,
    );
    const count = await runCli(['query', 'SELECT count() AS n FROM visitors', '--format', 'json'], env);
    expect(count.code).toBe(0);
    expect(Number((JSON.parse(count.stdout) as Array<{ n: number }>)[0]!.n)).toBe(expectedDays);

    const range = await runCli(['export', '--project', 'acme', '--from', '2026-10-01', '--to', '2026-10-04', '--grain', 'range', '--wait'], env);
    expect(range.code).toBe(0);
    const rangeRows = emulator.control.window('acme', '2026-10-01', '2026-10-04').visitors.length;
    const after = await runCli(['query', "SELECT date_from, date_to, count() AS n FROM visitors GROUP BY date_from, date_to ORDER BY date_from, date_to", '--format', 'json'], env);
    const windows = JSON.parse(after.stdout) as Array<{ date_from: string; date_to: string; n: number }>;
    expect(windows.map((w) => `${w.date_from}..${w.date_to}`)).toEqual(['2026-10-01..2026-10-02', '2026-10-01..2026-10-04', '2026-10-02..2026-10-03', '2026-10-03..2026-10-04']);
    expect(Number(windows[1]!.n)).toBe(rangeRows);
  });

  it('leaves the windows it enqueued for its key to a worker with that key: one with another key fails them, saying why, and asks nothing upstream', async () => {
    const prefix = randomPrefix('bound');
    const shell = { ...env, MINTPIPE_QUEUE_PREFIX: prefix };
    const enqueued = await runCli(['export', '--project', 'bound', '--from', '2026-10-01', '--to', '2026-10-02', '--dataset', 'visitors'], shell);
    expect(enqueued.code).toBe(0);
    const before = emulator.counters.routes.visitors.requests;
    const otherKey = 'mint_another_organizations_key';
    const worker = await startCli(['worker', '--queues', 'export'], { ...shell, MINTLIFY_API_KEY: otherKey }, (printed) => printed.stderr.includes('mintpipe worker:'), 90_000);
    const redis = createRedisConnection(env.REDIS_URL!, 'cli-export-bound');
    const queue = openQueue(QUEUE_NAMES.export, redis, queueKeyPrefix(prefix));
    try {
      const [failed] = await until('the window to fail', async () => {
        const jobs = await queue.getJobs(['failed']);
        return jobs.length > 0 ? jobs : undefined;
        // Under the test's own timeout, so a worker that runs the window is still stopped below.
      }, 30_000, 100);
      const url = emulator.url.replace(/[.]/g, '\\.');
      expect(failed!.failedReason).toMatch(new RegExp(`^UpstreamMismatchError: enqueued for ${url} \\(key [0-9a-f]{8}\\), and this worker sends to ${url} \\(key [0-9a-f]{8}\\): not run;`));
      expect(failed!.failedReason).not.toContain('another_organizations');
      expect(emulator.counters.routes.visitors.requests).toBe(before);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    }
  });

  it('queues the windows of a range in the order MINTPIPE_DATASETS gives, not the order datasets are declared in', async () => {
    // The reverse of the declared order (visitors before searches).
    const prefix = randomPrefix('order');
    const ordered = { ...env, MINTPIPE_DATASETS: 'searches,visitors', MINTPIPE_QUEUE_PREFIX: prefix };
    const result = await runCli(['export', '--project', 'acme', '--from', '2026-10-01', '--to', '2026-10-02', '--dataset', 'visitors,searches'], ordered);
    expect([result.code, result.stderr]).toEqual([0, expect.not.stringMatching(/error/i)]);
    const redis = createRedisConnection(env.REDIS_URL!, 'cli-export-order');
    const queue = openQueue(QUEUE_NAMES.export, redis, queueKeyPrefix(prefix));
    try {
      const jobs = await queue.getJobs(['prioritized', 'waiting']);
      const byPriority = jobs.sort((a, b) => a.opts.priority! - b.opts.priority!).map((j) => (j.data as { dataset: string }).dataset);
      expect(byPriority).toEqual(['searches', 'visitors']);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    }
  });

  it('export --format json without --wait prints the windows it enqueued, and those already in flight, as JSON', async () => {
    const prefix = randomPrefix('json');
    const own = { ...env, MINTPIPE_QUEUE_PREFIX: prefix };
    const args = ['export', '--project', 'acme', '--from', '2026-10-01', '--to', '2026-10-03', '--format', 'json'];
    const redis = createRedisConnection(env.REDIS_URL!, 'cli-export-json');
    const queue = openQueue(QUEUE_NAMES.export, redis, queueKeyPrefix(prefix));
    try {
      const first = await runCli(args, own);
      const again = await runCli(args, own);
      for (const result of [first, again]) expect(result.code).toBe(0);
      type Printed = { enqueued: number; inFlight: number; windows: Array<{ dataset: string; projectId: string; dateFrom: string; dateTo: string; jobId: string; added: boolean }> };
      const [printed, printedAgain] = [first, again].map((r) => JSON.parse(r.stdout) as Printed);
      expect(printed!.windows.map((w) => [w.dataset, w.projectId, w.dateFrom, w.dateTo, w.added])).toEqual([
        ['visitors', 'acme', '2026-10-01', '2026-10-02', true],
        ['visitors', 'acme', '2026-10-02', '2026-10-03', true],
      ]);
      expect([printed!.enqueued, printed!.inFlight, printedAgain!.enqueued, printedAgain!.inFlight]).toEqual([2, 0, 0, 2]);
      const queued = await queue.getJobs(['prioritized', 'waiting']);
      expect(queued.map((j) => j.id).sort()).toEqual(printed!.windows.map((w) => w.jobId).sort());
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    }
  });

  it('export --wait stopped by Ctrl-C says its windows stay queued and how to follow them again, and exits 130', async () => {
    // The page is answered after 5 s, past the workers' grace: the window is still running when
    // Ctrl-C stops them. A queue of its own: the window it leaves queued is no other test's.
    emulator.control.script('visitors', [{ kind: 'delay', ms: 5000, when: 'before' }]);
    const own = { ...env, MINTPIPE_QUEUE_PREFIX: `${env.MINTPIPE_QUEUE_PREFIX}-stopped`, MINTPIPE_SHUTDOWN_GRACE: '500ms' };
    const running = await startCli(['export', '--project', 'stopped', '--dataset', 'visitors', '--from', '2026-10-07', '--to', '2026-10-08', '--wait'], own, (printed) =>
      printed.stdout.includes('enqueued 1 window(s)') && emulator.control.pendingFaults('visitors') === 0,
    );
    running.child.kill('SIGINT');
    expect(await running.exited).toBe(130);
    expect(running.output().stderr).toContain(
      'stopped following 1 window(s); those not finished stay queued: workers (`mintpipe start` or `mintpipe worker`) carry them on, and `mintpipe export --project stopped --dataset visitors --from 2026-10-07 --to 2026-10-08 --wait` follows them again\n',
    );
  });

  it('never prints the API key, even at debug level, and status reports the finished runs', async () => {
    const result = await runCli(['export', '--project', 'keycheck', '--from', '2026-10-05', '--to', '2026-10-06', '--wait'], { ...env, LOG_LEVEL: 'debug' });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('"event"');
    expect(`${result.stdout}${result.stderr}`).not.toContain(env.MINTLIFY_API_KEY);
    // Every line a window job logs carries its queue, job id, project and window.
    const jobLines = result.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => ['api.attempt', 'batch_loaded', 'export_complete'].includes(String(l.event)));
    expect(jobLines.map((l) => l.event)).toEqual(expect.arrayContaining(['api.attempt', 'export_complete']));
    for (const line of jobLines) {
      expect(line).toMatchObject({ queue: 'export', project: 'keycheck', window: '2026-10-05..2026-10-06' });
      expect(line.jobId).toEqual(expect.any(String));
    }
    const status = await runCli(['status', '--format', 'json'], env);
    expect(status.code).toBe(0);
    const parsed = JSON.parse(status.stdout) as { queues: Array<{ name: string; counts: { completed: number } }>; lastRuns: Array<{ project: string; status: string }> };
    expect(parsed.queues.find((q) => q.name === 'export')?.counts.completed).toBeGreaterThanOrEqual(1);
    expect(parsed.lastRuns.find((r) => r.project === 'keycheck')?.status).toBe('complete');
    expect(status.stdout).not.toContain(env.MINTLIFY_API_KEY);
  });

  const bad: Array<[string, string[], Record<string, string>, RegExp]> = [
    ['an impossible date', ['export', '--project', 'p', '--from', '2026-02-30', '--to', '2026-03-02'], {}, /--from: 2026-02-30 is not a real calendar date/],
    ['from not before to', ['export', '--project', 'p', '--from', '2026-10-04', '--to', '2026-10-01'], {}, /--to: .*must be after --from/],
    ['an empty project', ['export', '--project', '', '--from', '2026-10-01', '--to', '2026-10-02'], {}, /--project: project id is empty/],
    ['an unknown grain', ['export', '--project', 'p', '--from', '2026-10-01', '--to', '2026-10-02', '--grain', 'fortnight'], {}, /--grain: expected one of day, week, month, range/],
    ['a key without the mint_ prefix', ['export', '--project', 'p', '--from', '2026-10-01', '--to', '2026-10-02'], { MINTLIFY_API_KEY: 'sk_live_abcdef' }, /MINTLIFY_API_KEY: must be a Mintlify admin key starting with "mint_"/],
    ['a plain-http API URL that is not local', ['status'], { MINTLIFY_API_URL: 'http://api.example.com' }, /MINTLIFY_API_URL: must be https/],
    ['an unknown LOG_LEVEL', ['status'], { LOG_LEVEL: 'loud' }, /LOG_LEVEL: expected one of/],
    ['a bad rate', ['status'], { MINTPIPE_ANALYTICS_RATE: 'lots' }, /MINTPIPE_ANALYTICS_RATE: expected N\/DURATION/],
    ['a writing query', ['query', 'DROP TABLE visitors'], {}, /query: DROP statements are not allowed/],
    ['an unknown command', ['exprot'], {}, /unknown command/],
  ];
  for (const [what, args, extra, message] of bad) {
    it(`refuses ${what} with exit code 2 and one line`, async () => {
      const result = await runCli(args, { ...env, ...extra });
      expect(result.code).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      expect(result.stderr).not.toContain('sk_live_abcdef');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  }
});
