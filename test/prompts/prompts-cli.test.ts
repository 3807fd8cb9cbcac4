import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSeededArchived, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli, startCli, type CliResult } from '../support/run-cli.js';
import { fileTempDir, TEST_API_KEY, testEnv } from '../support/test-env.js';
import { seedWarehouse } from '../support/warehouse-template.js';

const SEED = 42;
let emulator: RunningEmulator;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, seed: SEED, agentTimeMs: 100 });
  dir = fileTempDir('prompts-cli');
  env = testEnv({
    MINTLIFY_API_URL: emulator.url,
    MINTPIPE_DATA_DIR: seedWarehouse(join(dir, 'data')),
    MINTPIPE_POLL_INITIAL: '30ms',
    MINTPIPE_POLL_SETTLE: '200ms',
    MINTPIPE_POLL_MAX: '200ms',
    LOG_LEVEL: 'warn',
  });
});

afterAll(async () => {
  await emulator?.close();
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function liveJob(project: string, from = 1): string {
  for (let n = from; ; n++) if (!isSeededArchived(SEED, project, `job-${n}`)) return `job-${n}`;
}

function noKey(result: CliResult): void {
  expect(result.stdout + result.stderr).not.toContain(TEST_API_KEY);
}

describe('mintpipe prompts', () => {
  it('send --wait --format json exits 0 when every prompt was delivered, and the warehouse agrees', async () => {
    const jobA = liveJob('cli');
    const jobB = liveJob('cli', Number(jobA.slice(4)) + 1);
    const path = file('good.jsonl', [jobA, jobA, jobB].map((jobId, i) => JSON.stringify({ projectId: 'cli', jobId, prompt: `cli prompt ${i}` })).join('\n') + '\n');
    const sent = await runCli(['prompts', 'send', path, '--wait', '--format', 'json'], env);
    noKey(sent);
    expect(sent.code, sent.stderr).toBe(0);
    const summary = JSON.parse(sent.stdout) as { batchId: string; total: number; byStatus: Record<string, number>; prompts: Array<{ status: string }> };
    expect(summary.total).toBe(3);
    expect(summary.byStatus.completed! + summary.byStatus.failed!).toBe(3);
    expect(summary.prompts).toHaveLength(3);

    const query = await runCli(['query', 'SELECT status, count() AS n FROM prompt_outcomes GROUP BY status ORDER BY status', '--format', 'json'], env);
    expect(query.code, query.stderr).toBe(0);
    const counts = Object.fromEntries((JSON.parse(query.stdout) as Array<{ status: string; n: number }>).map((r) => [r.status, Number(r.n)]));
    expect(counts).toEqual(Object.fromEntries(Object.entries(summary.byStatus).filter(([, n]) => n > 0)));

    const again = await runCli(['prompts', 'send', path], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`batch ${summary.batchId}: 3 prompt\\(s\\), 0 new, 3 already submitted — nothing new enqueued`));

    const status = await runCli(['prompts', 'status', summary.batchId, '--format', 'json'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ batchId: summary.batchId, total: 3, done: 3, byStatus: summary.byStatus });
    expect(JSON.parse(status.stdout)).not.toHaveProperty('prompts');
    // An id copied in capitals is the same id; a resend with nothing ambiguous says so.
    expect((await runCli(['prompts', 'status', summary.batchId.toUpperCase()], env)).code).toBe(0);
    const resend = await runCli(['prompts', 'resend', summary.batchId, '--ambiguous'], env);
    expect([resend.code, resend.stdout.trim()]).toEqual([0, `batch ${summary.batchId}: nothing to resend (no ambiguous prompt)`]);
    // --prompts lists every prompt, in file order, in both formats.
    const every = await runCli(['prompts', 'status', summary.batchId, '--prompts', '--format', 'json'], env);
    const listed = (JSON.parse(every.stdout) as { prompts: Array<{ line: number; jobId: string; status: string }> }).prompts;
    expect(listed.map((p) => [p.line, p.jobId])).toEqual([
      [1, jobA],
      [2, jobA],
      [3, jobB],
    ]);
    const text = await runCli(['prompts', 'status', summary.batchId, '--prompts'], env);
    const lines = text.stdout.split('\n');
    const at = lines.indexOf('prompts (3):');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 4).map((l) => / line (\d) +cli\/(job-\d+) +(completed|failed) {2}sent /.exec(l)?.slice(1, 3))).toEqual([
      ['1', jobA],
      ['2', jobA],
      ['3', jobB],
    ]);
  });

  it('parses CSV with quoted commas, quotes and newlines, reports bad lines as FILE:LINE and sends the good ones (exit 2)', async () => {
    const job = liveJob('csv');
    const path = file(
      'prompts.csv',
      [
        'projectId,jobId,prompt',
        `csv,${job},"Fix the intro, then ""polish"" it"`,
        `csv,,missing job id`,
        `csv,${job},"Line one`,
        `line two, with a comma"`,
        '',
      ].join('\n'),
    );
    const result = await runCli(['prompts', 'send', path, '--wait', '--format', 'json'], env);
    noKey(result);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path}:3: jobId: missing (a row without a jobId starts a new agent job, which cannot be undone: pass --allow-create)`);
    const summary = JSON.parse(result.stdout) as { total: number; badLines: Array<{ line: number }> };
    expect(summary.total).toBe(2);
    expect(summary.badLines).toEqual([{ line: 3, reason: expect.stringMatching(/^jobId: missing/) }]);
    expect(emulator.creates).toEqual([]);
    expect(emulator.messages.filter((m) => m.projectId === 'csv').map((m) => m.prompt)).toEqual([
      'Fix the intro, then "polish" it',
      'Line one\nline two, with a comma',
    ]);
  });

  it('send without --wait enqueues the batch and says when no worker serves the queue yet', async () => {
    const alone = { ...env, MINTPIPE_QUEUE_PREFIX: `tcli${randomBytes(4).toString('hex')}`, MINTPIPE_DATA_DIR: seedWarehouse(join(dir, 'data-alone')) };
    const path = file('alone.jsonl', `${JSON.stringify({ projectId: 'cli', jobId: liveJob('cli'), prompt: 'sent by a worker later' })}\n`);
    const sent = await runCli(['prompts', 'send', path], alone);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^batch [0-9a-f]{16}: 1 prompt\(s\), 1 new, 0 already submitted\n$/);
    expect(sent.stderr).toBe('no worker serves the prompts queue yet: the batch runs once `mintpipe start` or `mintpipe worker` runs (with its MINTLIFY_API_KEY), or pass --wait\n');
    const batchId = /^batch ([0-9a-f]{16})/.exec(sent.stdout)![1]!;
    // The same batch again adds nothing: nothing to say about workers.
    const again = await runCli(['prompts', 'send', path], alone);
    expect([again.code, again.stderr]).toEqual([0, '']);
    const cancelled = await runCli(['prompts', 'cancel', batchId], alone);
    expect([cancelled.code, cancelled.stdout]).toEqual([0, `batch ${batchId}: 1 prompt(s) cancelled, 0 in flight left to finish\n`]);
    expect(cancelled.stderr).toBe(
      'no worker serves the prompts queue yet: the warehouse (prompt_outcomes) records the cancellations once `mintpipe start` or `mintpipe worker` runs (with its MINTLIFY_API_KEY)\n',
    );
    // With a worker connected to the queue, no hint.
    const worker = await startCli(['worker', '--queues', 'prompts'], alone, (printed) => printed.stderr.includes('mintpipe worker: prompts'));
    try {
      const other = file('alone-2.jsonl', `${JSON.stringify({ projectId: 'cli', jobId: liveJob('cli'), prompt: 'sent by the running worker' })}\n`);
      const served = await runCli(['prompts', 'send', other], alone);
      expect([served.code, served.stderr]).toEqual([0, '']);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  });

  it('send --wait stopped by Ctrl-C says the batch is kept and how to follow it, and exits 130', async () => {
    const own = { ...env, MINTPIPE_QUEUE_PREFIX: `tcli${randomBytes(4).toString('hex')}`, MINTPIPE_DATA_DIR: seedWarehouse(join(dir, 'data-interrupted')) };
    // The message is answered after 3 s: the batch is still open when Ctrl-C comes.
    emulator.control.script('message', [{ kind: 'delay', ms: 3000, when: 'before' }]);
    const path = file('interrupted.jsonl', `${JSON.stringify({ projectId: 'cli', jobId: liveJob('cli'), prompt: 'followed, then not' })}\n`);
    const running = await startCli(['prompts', 'send', path, '--wait'], own, (printed) => /batch [0-9a-f]{16}: 0\/1 final/.test(printed.stderr));
    const batchId = /batch ([0-9a-f]{16}):/.exec(running.output().stderr)![1]!;
    running.child.kill('SIGINT');
    expect(await running.exited).toBe(130);
    expect(running.output().stderr).toContain(
      `stopped following batch ${batchId}; it is kept: \`mintpipe prompts status ${batchId}\` shows where it stands, and workers (\`mintpipe start\` or \`mintpipe worker\`) carry it on\n`,
    );
  });

  it('send --wait exits 1 when a prompt ended ambiguous', async () => {
    emulator.control.script('message', [{ kind: 'status', status: 502, when: 'after' }]);
    const path = file('ambiguous.jsonl', `${JSON.stringify({ projectId: 'amb', jobId: liveJob('amb'), prompt: 'maybe' })}\n`);
    const result = await runCli(['prompts', 'send', path, '--wait'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/ambiguous\s+1/);
    expect(result.stdout).toMatch(/not completed \(1\):/);
  });

  it('refuses a missing file, an unknown batch and a resend without --ambiguous with one line and exit 2; a batch Redis lost but the ledger has exits 1, naming the command that recovers it', async () => {
    const missing = await runCli(['prompts', 'send', join(dir, 'nope.jsonl')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(`mintpipe: ${join(dir, 'nope.jsonl')}: cannot read the prompt file (no such file)`);
    const unknownText = 'neither Redis nor the ledger knows it (check the id, MINTPIPE_QUEUE_PREFIX and MINTPIPE_DATA_DIR)';
    for (const command of [['status'], ['cancel'], ['resend', '--ambiguous']]) {
      const unknown = await runCli(['prompts', command[0]!, '0123456789abcdef', ...command.slice(1)], env);
      expect([unknown.code, unknown.stderr.trim()], command[0]).toEqual([2, `mintpipe: batch 0123456789abcdef: no such batch: ${unknownText}`]);
    }
    // A ledger that cannot be read cannot tell a lost batch from a mistyped id: it says so (exit 1).
    const unreadable = await runCli(['prompts', 'status', '0123456789abcdef'], { ...env, CLICKHOUSE_URL: 'http://127.0.0.1:1' });
    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr.trim()).toMatch(/^mintpipe: batch 0123456789abcdef: not in Redis \(lost, or a mistyped id\), and the ledger could not be read to tell which: .*ECONNREFUSED/);
    const recover = await runCli(['prompts', 'recover', '0123456789abcdef'], env);
    expect([recover.code, recover.stderr.trim()]).toEqual([2, `mintpipe: batch 0123456789abcdef: nothing to recover: ${unknownText}`]);
    // The ledger has this batch; Redis under another prefix does not: what a Redis that lost it looks like.
    const sent = await runCli(['prompts', 'send', file('lost.jsonl', `${JSON.stringify({ projectId: 'lost', jobId: liveJob('lost'), prompt: 'kept in the ledger' })}\n`), '--wait', '--format', 'json'], env);
    const { batchId } = JSON.parse(sent.stdout) as { batchId: string };
    const lost = await runCli(['prompts', 'status', batchId], { ...env, MINTPIPE_QUEUE_PREFIX: `${env.MINTPIPE_QUEUE_PREFIX}x` });
    expect(lost.code).toBe(1);
    expect(lost.stderr.trim().split('\n')).toEqual([
      `mintpipe: batch ${batchId}: lost from Redis — was it restarted without persistence? \`mintpipe prompts recover ${batchId}\` rebuilds it from the ledger (or check MINTPIPE_QUEUE_PREFIX)`,
    ]);
    const resend = await runCli(['prompts', 'resend', '0123456789abcdef'], env);
    expect(resend.code).toBe(2);
    expect(resend.stderr).toMatch(/--ambiguous or --prompt ID is required/);
  });
});
