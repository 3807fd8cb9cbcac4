import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { enqueueWindows } from '../../src/export/enqueue.js';
import { testEnv } from '../support/export-stack.js';
import { alive, descendants } from '../support/processes.js';
import { runCli, startCli } from '../support/run-cli.js';
import { queueKeyPrefix } from '../../src/queue/queue-names.js';
import { dashboardTokenHolder } from '../support/test-stack.js';
import { until } from '../support/wait.js';

const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
afterAll(() => redis.disconnect());

describe('mintpipe start lifecycle', () => {
  it('serves health and metrics, then stops cleanly on SIGTERM within the grace period, keeping its schedule', async () => {
    const env = testEnv({ MINTPIPE_DASHBOARD_PORT: '0', MINTPIPE_SHUTDOWN_GRACE: '5s', LOG_LEVEL: 'warn' });
    delete (env as Record<string, string | undefined>).MINTLIFY_API_KEY; // demo mode: the built-in emulator
    const { child, output, exited } = await startCli(['start'], { ...env, MINTLIFY_API_KEY: '' });
    try {
      const { stdout } = output();
      expect(stdout.split('\n')[0]).toMatch(
        /^mintpipe: no MINTLIFY_API_KEY set — running against the built-in emulator at http:\/\/127\.0\.0\.1:\d+ \(synthetic data\), into the embedded warehouse in \S+, queues in Redis at redis:\/\/127\.0\.0\.1:\d+ \(REDIS_URL\)$/,
      );
      // The built-in emulator answers this start's own key only: another local user reaches its port, not its data.
      const emulatorUrl = /built-in emulator at (http:\/\/\S+) /.exec(stdout)![1]!;
      const stranger = await fetch(`${emulatorUrl}/v2/agent/demo-docs/job/job-1`, { headers: { authorization: 'Bearer mint_demo_emulator' } });
      expect(stranger.status).toBe(401);
      // The address it prints carries the generated token, so a click opens it.
      const holder = dashboardTokenHolder(env.MINTPIPE_DATA_DIR!);
      const printed = /dashboard: (http:\/\/\S+)\/\?token=([0-9a-f]{48}) /.exec(stdout);
      expect(printed?.[2]).toBe(holder.token());
      const url = printed![1]!;
      expect((await fetch(`${url}/?token=${printed![2]}`, { redirect: 'manual' })).status).toBe(302);
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      // Let the demo windows run so the pipeline metrics have something to count.
      const queue = new Queue('export', { connection: redis, prefix: queueKeyPrefix(env.MINTPIPE_QUEUE_PREFIX!) });
      await until('7 completed export jobs', async () => (((await queue.getJobCounts('completed')).completed ?? 0) >= 7 ? true : undefined));
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      const metrics = await (await holder.fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/mintpipe_rows_loaded_total\{project="demo-docs"\} \d+/);
      expect(metrics).toMatch(/bullmq|queue/i);

      child.kill('SIGTERM');
      // 0, not 143: it closed by itself, before the hard stop that follows the grace period.
      expect(await exited, `signal ${child.signalCode}; stderr: ${output().stderr}`).toBe(0);
      const schedulers = await queue.getJobSchedulers();
      expect(schedulers.map((s) => s.key)).toContain('nightly-export');
      await queue.close();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);

  it('with an API key, says on its first line which API and warehouse it runs against, never the key', async () => {
    const key = 'mint_lifecycle_first_line_secret';
    // Credentials in the API URL are refused outright (secret-echo-redaction.test.ts); a query string is dropped from what is shown.
    const env = testEnv({ LOG_LEVEL: 'warn', MINTLIFY_API_URL: 'http://127.0.0.1:9/v1/?token=abc', MINTLIFY_API_KEY: key });
    const { child, output, exited } = await startCli(['start', '--no-workers', '--no-dashboard'], env);
    try {
      const redisAt = new URL(env.REDIS_URL!).host;
      expect(output().stdout.split('\n')[0]).toBe(
        `mintpipe: running against http://127.0.0.1:9/v1 with MINTLIFY_API_KEY, into the embedded warehouse in ${env.MINTPIPE_DATA_DIR}, queues in Redis at redis://${redisAt} (REDIS_URL)`,
      );
      child.kill('SIGTERM');
      expect(await exited, `signal ${child.signalCode}; stderr: ${output().stderr}`).toBe(0);
      const { stdout, stderr } = output();
      for (const secret of [key, key.slice('mint_'.length), 'token=abc']) expect(stdout + stderr).not.toContain(secret);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);

  it('stops cleanly when its terminal closes (SIGHUP), and the private redis-server it started stops with it', async () => {
    const env: Record<string, string | undefined> = testEnv({ LOG_LEVEL: 'info', MINTLIFY_API_URL: 'http://127.0.0.1:9' });
    delete env.REDIS_URL;
    const { child, output, exited } = await startCli(['start', '--no-workers', '--no-dashboard', '--no-scheduler'], env);
    let pid = 0;
    try {
      expect(output().stdout.split('\n')[0]).toContain(`queues in a private redis-server in ${join(env.MINTPIPE_DATA_DIR!, 'redis')}`);
      pid = (JSON.parse(readFileSync(join(env.MINTPIPE_DATA_DIR!, 'redis', 'server.json'), 'utf8')) as { pid: number }).pid;
      expect(alive(pid)).toBe(true);
      child.kill('SIGHUP');
      // 0: it closed by itself (Node's default for SIGHUP is to die on the spot, leaving the server behind).
      expect(await exited, `signal ${child.signalCode}; stderr: ${output().stderr}`).toBe(0);
      expect(output().stderr).toContain('"event":"shutdown","signal":"SIGHUP"');
      expect(output().stderr).toContain('"event":"stopped","signal":"SIGHUP"');
      await until(`the private redis-server (pid ${pid}) to stop`, async () => (alive(pid) ? undefined : true));
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      // When the test fails, the server it checks is not left running.
      if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 90_000);

  it('stops when the terminal it runs in goes away (its logs then fail with EIO), and the private redis-server stops with it', async () => {
    // A real terminal, not pipes: `script` runs start on a pty; killing `script` closes the pty, the
    // kernel sends SIGHUP, and every later write fails with EIO (pino's own destination then retried
    // its flush at exit forever: the process never ended, nor did its redis-server).
    const env: Record<string, string | undefined> = testEnv({ LOG_LEVEL: 'info', MINTLIFY_API_URL: 'http://127.0.0.1:9' });
    delete env.REDIS_URL;
    const command = [process.execPath, 'bin/mintpipe.js', 'start', '--no-workers', '--no-dashboard', '--no-scheduler'].map((a) => `'${a}'`).join(' ');
    const terminal = spawn('script', ['-qfc', command, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let printed = '';
    terminal.stdout.on('data', (d: Buffer) => (printed += d.toString()));
    const pids: number[] = [];
    try {
      await until('"running (Ctrl-C to stop)" on the terminal', async () => (printed.includes('running (Ctrl-C to stop)') ? true : undefined));
      // The node process itself (a shell between `script` and it names the bin in its cmdline too).
      const mintpipe = descendants(terminal.pid!).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[1] === 'bin/mintpipe.js');
      expect(mintpipe).toBeDefined();
      const redisPid = (JSON.parse(readFileSync(join(env.MINTPIPE_DATA_DIR!, 'redis', 'server.json'), 'utf8')) as { pid: number }).pid;
      pids.push(mintpipe!, redisPid);
      terminal.kill('SIGKILL');
      await until(`mintpipe (pid ${mintpipe}) and its redis-server (pid ${redisPid}) to stop`, async () => (alive(mintpipe!) || alive(redisPid) ? undefined : true));
    } finally {
      if (terminal.exitCode === null) terminal.kill('SIGKILL');
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 90_000);

  it('runs a worker with its own /metrics that stops cleanly on SIGTERM', async () => {
    const env = testEnv({ LOG_LEVEL: 'warn', MINTLIFY_API_URL: 'http://127.0.0.1:9' });
    const metricsLine = /metrics: (http:\/\/\S+)\/metrics/;
    const { child, output, exited } = await startCli(['worker', '--queues', 'export', '--metrics-port', '0'], env, (printed) => metricsLine.test(printed.stderr));
    try {
      const url = metricsLine.exec(output().stderr)![1];
      // Behind the token generated in its data dir, as the line it printed says.
      const holder = dashboardTokenHolder(env.MINTPIPE_DATA_DIR!);
      expect(output().stderr).toContain(`Authorization: Bearer the token in ${join(env.MINTPIPE_DATA_DIR!, 'dashboard-token')}`);
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      const metrics = await (await holder.fetch(`${url}/metrics`)).text();
      expect(metrics).toContain('mintpipe_api_request_duration_seconds');
      expect(metrics).not.toContain('mint_test_secret');
      const queue = new Queue('export', { connection: redis, prefix: queueKeyPrefix(env.MINTPIPE_QUEUE_PREFIX!) });
      expect(await queue.getWorkersCount()).toBe(1);
      await queue.close();
      // The worker holds the embedded warehouse; `query` from another process goes through it.
      const query = await runCli(['query', 'SELECT count() AS runs FROM export_runs', '--format', 'json'], env);
      expect(query.stderr).toBe('');
      expect(query.code).toBe(0);
      expect(JSON.parse(query.stdout)).toEqual([{ runs: 0 }]);
      child.kill('SIGTERM');
      expect(await exited, `signal ${child.signalCode}; stderr: ${output().stderr}`).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 90_000);

  it('releases a job still running when the grace period ends and exits with code 0, leaving the job to be resumed', async () => {
    // An upstream that accepts the request and never answers: the window's job cannot finish.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const env = testEnv({ LOG_LEVEL: 'warn', MINTLIFY_API_URL: `http://127.0.0.1:${port}`, MINTPIPE_SHUTDOWN_GRACE: '1s' });
    const queue = new Queue('export', { connection: redis, prefix: queueKeyPrefix(env.MINTPIPE_QUEUE_PREFIX!) });
    const { child, output, exited } = await startCli(['worker', '--queues', 'export'], env, (printed) => printed.stderr.includes('mintpipe worker: export'));
    try {
      const [enqueued] = await enqueueWindows(queue, [{ dataset: 'visitors', projectId: 'stuck-docs', dateFrom: '2026-10-01', dateTo: '2026-10-02', kind: 'manual' }]);
      await until('the window job to reach the silent upstream', async () => (sockets.length > 0 ? true : undefined));
      child.kill('SIGTERM');
      // 0: its workers let go of the job (1 would mean they could not, 143 a second signal).
      expect(await exited, `signal ${child.signalCode}; stderr: ${output().stderr}`).toBe(0);
      expect(output().stderr).toContain('"event":"workers_force_close"');
      // Not failed and not lost: it waits in Redis for its lock to lapse and another worker to resume it.
      expect(['active', 'waiting']).toContain(await queue.getJobState(enqueued!.jobId));
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await queue.obliterate({ force: true });
      await queue.close();
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 90_000);
});
