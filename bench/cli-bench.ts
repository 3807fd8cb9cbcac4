/**
 * `npm run bench:cli [-- --runs N] [--memory-runs N] [--no-memory] [--as-is]`: the bin as a user runs it, each command a whole
 * process, several runs (min / median / max of wall time, median peak RSS), next to `node -e 0` and a
 * bare process that loads the embedded engine and runs SELECT 1, measured in the same run; then the
 * issue 11 targets and ratios. Also one-shot exports of a one-page window and of a ~900k-row day
 * (memory must stay flat in the size of the work). Timings belong here, never in tests.
 *
 * Runs dist/ (MINTPIPE_USE_DIST=1), building it first when the sources are newer. Peak RSS is
 * GNU time's %M (ru_maxrss). Upstream: the emulator in a process of its own, no latency, no budget.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { staleReason } from '../bin/dist-freshness.js';
import { freePort, waitForRedis } from '../test/support/ports.js';
import { spawnEmulator } from './spawn-emulator.js';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 5;
const MEMORY = !args.includes('--no-memory');
const TIME = '/usr/bin/time';
const scratch = mkdtempSync(join(tmpdir(), 'mintpipe-bench-cli-'));

interface Sample {
  seconds: number;
  rssMb: number | undefined;
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Row {
  name: string;
  samples: Sample[];
  /** Target for the median wall time, seconds. */
  targetSeconds?: number;
}

/** Runs one process to its end: wall time from spawn to exit, peak RSS from GNU time when present. */
function measure(command: string[], env: Record<string, string>): Promise<Sample> {
  const rssFile = join(scratch, `rss-${process.hrtime.bigint()}`);
  const withTime = existsSync(TIME) ? [TIME, '-f', '%M', '-o', rssFile, ...command] : command;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(withTime[0]!, withTime.slice(1), { env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const seconds = (performance.now() - started) / 1000;
      const kb = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) : NaN;
      resolve({ seconds, rssMb: Number.isFinite(kb) ? kb / 1024 : undefined, code, stdout, stderr });
    });
  });
}

async function repeat(name: string, runs: number, make: (i: number) => [string[], Record<string, string>], expectCode = 0, targetSeconds?: number): Promise<Row> {
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i += 1) {
    const [command, env] = make(i);
    const sample = await measure(command, env);
    if (sample.code !== expectCode) throw new Error(`${name}: exit ${sample.code} (expected ${expectCode})\n${sample.stderr}${sample.stdout}`);
    samples.push(sample);
  }
  return { name, samples, targetSeconds };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const seconds = (row: Row) => row.samples.map((s) => s.seconds);
const medianSeconds = (row: Row) => median(seconds(row));
const medianRss = (row: Row) => median(row.samples.map((s) => s.rssMb ?? NaN));

const bin = (...rest: string[]) => [process.execPath, 'bin/mintpipe.js', ...rest];

// ---- dist/ as a global install runs it ----
// --as-is: measure the checkout in the current directory as it is (e.g. an older commit, for a before/after).
const stale = args.includes('--as-is') ? undefined : staleReason(process.cwd());
if (stale) {
  process.stderr.write(`bench:cli: ${stale}: building dist/ first (npm run build)\n`);
  // esbuild bundles without typechecking: the bench runs someone's work in progress as it is.
  spawnSync(process.execPath, ['bin/build.mjs'], { stdio: 'inherit' });
}

const redisDir = join(scratch, 'redis');
const redisPort = await freePort();
spawnSync('mkdir', ['-p', redisDir]);
const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', redisDir, '--save', '', '--appendonly', 'yes', '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' });
const redisUrl = `redis://127.0.0.1:${redisPort}`;
const emulator = await spawnEmulator(0);
let start: ChildProcess | undefined;

const env = (extra: Record<string, string> = {}): Record<string, string> => ({
  MINTPIPE_USE_DIST: '1',
  REDIS_URL: redisUrl,
  MINTLIFY_API_URL: emulator.url,
  MINTLIFY_API_KEY: 'mint_bench_cli',
  MINTPIPE_ANALYTICS_RATE: 'off',
  LOG_LEVEL: 'warn',
  ...extra,
});

const BARE_ENGINE = `const { Session } = await import('chdb'); const s = new Session(process.argv[1]); s.query('SELECT 1', 'CSV'); s.close();`;

try {
  await waitForRedis(redisUrl, 10_000);
  const rows: Row[] = [];
  const progress = (row: Row) => {
    rows.push(row);
    process.stderr.write(`  ${row.name}: median ${medianSeconds(row).toFixed(3)} s\n`);
    return row;
  };
  process.stderr.write(`bench:cli: ${RUNS} runs each\n`);

  const node = progress(await repeat('node -e 0', RUNS, () => [[process.execPath, '-e', '0'], {}]));
  const engine = progress(
    await repeat('bare engine: load chDB, SELECT 1', RUNS, (i) => [[process.execPath, '--input-type=module', '-e', BARE_ENGINE, join(scratch, `bare-${i}`)], {}]),
  );
  const help = progress(await repeat('mintpipe --help', RUNS, () => [bin('--help'), env()], 0, 0.25));
  const usage = progress(await repeat('mintpipe export --bogus (usage error)', RUNS, () => [bin('export', '--bogus'), env()], 2, 0.25));

  const oneShotDir = join(scratch, 'one-shot');
  await measure(bin('query', 'SELECT 1'), env({ MINTPIPE_DATA_DIR: oneShotDir })); // creates the warehouse (migrations) once
  const query = progress(await repeat('mintpipe query "SELECT 1" one-shot (embedded)', RUNS, () => [bin('query', 'SELECT 1'), env({ MINTPIPE_DATA_DIR: oneShotDir })], 0, 0.6));

  // Through a running installation: `start` holds the engine and serves its gateway.
  const startDir = join(scratch, 'start');
  start = spawn(process.execPath, ['bin/mintpipe.js', 'start', '--demo-days', '0'], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env({ MINTPIPE_DATA_DIR: startDir, MINTPIPE_QUEUE_PREFIX: 'benchstart', MINTPIPE_DASHBOARD_PORT: '0' }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    start!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('running (Ctrl-C to stop)')) resolve();
    });
    start!.once('exit', (code) => reject(new Error(`start exited with ${code}: ${out}`)));
  });
  const viaStart = progress(
    await repeat('mintpipe query "SELECT 1" through a running start', RUNS, () => [bin('query', 'SELECT 1'), env({ MINTPIPE_DATA_DIR: startDir })], 0, 0.3),
  );
  start.kill('SIGINT');
  await new Promise((resolve) => start!.once('exit', resolve));
  start = undefined;

  // One-shot exports: a warm warehouse (created once), a new day each run as a nightly catch-up would.
  const exportDir = join(scratch, 'export');
  const day = (i: number) => `2026-09-${String(i + 1).padStart(2, '0')}`;
  const exportArgs = (project: string, i: number) => bin('export', '--project', project, '--from', day(i), '--to', day(i + 1), '--wait');
  await measure(bin('query', 'SELECT 1'), env({ MINTPIPE_DATA_DIR: exportDir }));
  const onePage = progress(await repeat('mintpipe export --wait, one-page window (one-shot)', RUNS, (i) => [exportArgs('page-100', i), env({ MINTPIPE_DATA_DIR: exportDir })], 0, 1.0));

  let large: Row | undefined;
  if (MEMORY) {
    // The emulator computes a window on its first request: warm it so the export measures mintpipe.
    const warm = (i: number) => fetch(`${emulator.url}/v1/analytics/mem-900000/visitors?dateFrom=${day(i)}&dateTo=${day(i + 1)}&limit=1`, { headers: { authorization: 'Bearer mint_bench_cli' } });
    const memRuns = Number(args[args.indexOf('--memory-runs') + 1]) || 1;
    for (let i = 0; i < memRuns; i += 1) await warm(10 + i);
    large = progress(await repeat('mintpipe export --wait, ~900k-row day (one-shot)', memRuns, (i) => [exportArgs('mem-900000', 10 + i), env({ MINTPIPE_DATA_DIR: exportDir })]));
    const exported = /(\d+) rows/.exec(large.samples[0]!.stdout)?.[1];
    process.stderr.write(`  (${exported ?? '?'} rows per ~900k window)\n`);
  }

  // ---- the table ----
  const fmt = (n: number) => n.toFixed(3);
  const mb = (n: number) => (Number.isFinite(n) ? `${n.toFixed(0)} MB` : '-');
  const lines = [`mintpipe CLI, whole processes, ${RUNS} runs each (wall seconds; peak RSS median)`, ''];
  lines.push(`${'command'.padEnd(56)} ${'min'.padStart(7)} ${'median'.padStart(7)} ${'max'.padStart(7)}  ${'×node'.padStart(6)} ${'peak RSS'.padStart(9)}  target`);
  for (const row of rows) {
    const t = seconds(row);
    const target = row.targetSeconds === undefined ? '' : `≤ ${row.targetSeconds} s ${medianSeconds(row) <= row.targetSeconds ? 'ok' : 'MISSED'}`;
    lines.push(
      `${row.name.padEnd(56)} ${fmt(Math.min(...t)).padStart(7)} ${fmt(medianSeconds(row)).padStart(7)} ${fmt(Math.max(...t)).padStart(7)}  ${(medianSeconds(row) / medianSeconds(node)).toFixed(1).padStart(6)} ${mb(medianRss(row)).padStart(9)}  ${target}`,
    );
  }
  const engineRss = medianRss(engine);
  const rssRatio = medianRss(onePage) / engineRss;
  lines.push('');
  lines.push(`query one-shot / bare engine:             ${(medianSeconds(query) / medianSeconds(engine)).toFixed(2)}× time`);
  lines.push(`query through start / node -e 0:          ${(medianSeconds(viaStart) / medianSeconds(node)).toFixed(2)}× time`);
  lines.push(`help, usage error / node -e 0:            ${(medianSeconds(help) / medianSeconds(node)).toFixed(2)}×, ${(medianSeconds(usage) / medianSeconds(node)).toFixed(2)}× time`);
  lines.push(`export one-page peak RSS / bare engine:   ${rssRatio.toFixed(2)}× (target ≤ 1.25× ${rssRatio <= 1.25 ? 'ok' : 'MISSED'})`);
  if (large) {
    const growth = medianRss(large) - medianRss(onePage);
    lines.push(`export ~900k rows vs one page, peak RSS:  ${mb(medianRss(large))} vs ${mb(medianRss(onePage))}: +${mb(growth)} (target ≤ +150 MB ${growth <= 150 ? 'ok' : 'MISSED'})`);
  }
  process.stdout.write(`\n${lines.join('\n')}\n`);
} finally {
  start?.kill('SIGKILL');
  emulator.stop();
  redis.kill('SIGTERM');
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(0);
