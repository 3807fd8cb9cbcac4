/**
 * A handed-over command runs where the user meant it to: with `start` running on one emulator, a
 * shell configured for another (or another key) refuses to hand its prompts and exports over —
 * exit 2, one line naming the setting and both values — and neither emulator hears from it; with
 * the running installation's settings the same commands hand over and finish.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { fileTempDir, TEST_API_KEY, testEnv } from '../support/test-env.js';
import { runCli, startCli, type RunningCli } from '../support/run-cli.js';
import { seedWarehouse } from '../support/warehouse-template.js';

const OTHER_KEY = 'mint_another_secret_key_9876543210';
let first: RunningEmulator;
let second: RunningEmulator;
let envFirst: Record<string, string>;
let envSecond: Record<string, string>;
let promptFile: string;
let start: RunningCli | undefined;

/** Every request an emulator received, of any route. */
function heard(emulator: RunningEmulator): number {
  const c = emulator.counters.snapshot();
  return c.analyticsRequests + c.messageRequests + c.jobRequests;
}

beforeAll(async () => {
  [first, second] = await Promise.all([startEmulator({ port: 0, agentTimeMs: 100 }), startEmulator({ port: 0, agentTimeMs: 100 })]);
  const dir = fileTempDir('hand-over');
  envFirst = testEnv({
    MINTLIFY_API_URL: first.url,
    MINTPIPE_DATA_DIR: seedWarehouse(join(dir, 'data')),
    MINTPIPE_POLL_INITIAL: '30ms',
    MINTPIPE_POLL_SETTLE: '200ms',
    MINTPIPE_POLL_MAX: '200ms',
    LOG_LEVEL: 'warn',
  });
  envSecond = { ...envFirst, MINTLIFY_API_URL: second.url };
  promptFile = join(dir, 'prompts.jsonl');
  writeFileSync(promptFile, `${JSON.stringify({ projectId: 'hand-over', jobId: 'job-1', prompt: 'hello' })}\n`);
  // The running installation names its projects; the shells do not.
  start = await startCli(['start', '--no-dashboard', '--no-scheduler'], { ...envFirst, MINTPIPE_PROJECTS: 'running-docs' });
});

afterAll(async () => {
  if (start && start.child.exitCode === null) {
    start.child.kill('SIGTERM');
    await start.exited;
  }
  await Promise.all([first?.close(), second?.close()]);
});

describe('handing work to a running installation', () => {
  it('refuses prompts send --wait and export --wait from a shell set for another emulator, and neither emulator hears from them', async () => {
    const before = [heard(first), heard(second)];
    const prompts = await runCli(['prompts', 'send', promptFile, '--wait'], envSecond);
    const exported = await runCli(['export', '--project', 'hand-over', '--from', '2026-10-01', '--to', '2026-10-02', '--wait'], envSecond);
    for (const result of [prompts, exported]) {
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `mintpipe: MINTLIFY_API_URL: this shell sends to ${second.url}, the running start pid ${start!.child.pid} sends to ${first.url}; nothing was handed over: stop the running installation, or use its settings\n`,
      );
    }
    expect([heard(first), heard(second)]).toEqual(before);
  });

  it('refuses a shell with another key, naming both keys by fingerprint only', async () => {
    const result = await runCli(['export', '--project', 'hand-over', '--from', '2026-10-01', '--to', '2026-10-02'], { ...envFirst, MINTLIFY_API_KEY: OTHER_KEY });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^mintpipe: MINTLIFY_API_KEY: this shell's key has fingerprint [0-9a-f]{8}, the running start pid \d+ uses [0-9a-f]{8}; nothing was handed over: .*\n$/);
    expect(result.stderr).not.toContain(OTHER_KEY.slice(5));
    expect(result.stderr).not.toContain(TEST_API_KEY.slice(5));
  });

  it('checks a shell that sets only MINTLIFY_API_KEY: its default upstream is not the running one\'s, so nothing is handed over', async () => {
    const before = heard(first);
    const result = await runCli(['export', '--project', 'hand-over-key-only', '--from', '2026-10-01', '--to', '2026-10-02', '--wait'], { ...envFirst, MINTLIFY_API_URL: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^mintpipe: MINTLIFY_API_URL: this shell sends to https:\/\/api\.mintlify\.com\/?, the running start pid \d+ sends to .*; nothing was handed over: .*\n$/);
    expect(heard(first)).toBe(before);
  });

  it('hands over and finishes with the running installation\'s settings; status names its upstream and warehouse', async () => {
    const exported = await runCli(['export', '--project', 'hand-over', '--from', '2026-10-01', '--to', '2026-10-02', '--wait'], envFirst);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain('using the running workers');
    const prompts = await runCli(['prompts', 'send', promptFile, '--wait'], envFirst);
    expect(prompts.code).toBe(0);
    expect(heard(first)).toBeGreaterThanOrEqual(2);
    expect(heard(second)).toBe(0);
    const status = await runCli(['status'], envFirst);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`upstream ${first.url} key `);
    expect(status.stdout).toContain(`warehouse embedded ${join(envFirst.MINTPIPE_DATA_DIR!, 'clickhouse')}`);
  });

  it('prompts recover --wait hands over once and says so once', async () => {
    const sent = await runCli(['prompts', 'send', promptFile, '--format', 'json'], envFirst);
    expect(sent.code, sent.stderr).toBe(0);
    const { batchId } = JSON.parse(sent.stdout) as { batchId: string };
    const recovered = await runCli(['prompts', 'recover', batchId, '--wait'], envFirst);
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(recovered.stderr.split('\n').filter((line) => line === 'using the running workers')).toHaveLength(1);
  });

  it('warns about a budget this shell sets differently, and not about one it leaves to its default', async () => {
    const window = ['export', '--project', 'hand-over', '--from', '2026-10-03', '--to', '2026-10-04'];
    const { MINTPIPE_ANALYTICS_RATE: _unset, ...defaults } = envFirst;
    const quiet = await runCli(window, defaults);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toContain('warning:');
    const warned = await runCli(window, { ...envFirst, MINTPIPE_ANALYTICS_RATE: '50/1h' });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/^warning: the running start pid \d+ uses MINTPIPE_ANALYTICS_RATE off, this shell 50\/1h: the work runs with the running one's$/m);
  });

  it("plans the running installation's projects when --project is not given, at the pace of its budget, not this shell's", async () => {
    // The running start has no analytics budget (off); this shell would allow 50 an hour.
    const plan = await runCli(['plan', '--from', '2026-10-01', '--to', '2026-10-03', '--dataset', 'visitors', '--format', 'json'], { ...envFirst, MINTPIPE_ANALYTICS_RATE: '50/1h' });
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({ windows: 2, requestsPerHour: null, hours: null });
  });

  it("prices export --dry-run at the pace of the running installation's budget, as plan does, not this shell's", async () => {
    const args = ['export', '--dry-run', '--project', 'hand-over', '--from', '2026-10-01', '--to', '2026-10-03', '--format', 'json'];
    const dry = await runCli(args, { ...envFirst, MINTPIPE_ANALYTICS_RATE: '50/1h' });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ windows: 2, requestsPerHour: null, hours: null });
  });
});
