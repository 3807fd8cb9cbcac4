/**
 * Each command loads only what it uses (issue 11): help and usage errors load commander and no
 * other package; `query` through a running installation loads neither BullMQ nor the embedded
 * engine. Judged on the modules the process actually loaded (test/support/module-trace.mjs), not
 * on time. The bin runs the bundle in dist/cli when it is current (it reports the modules inside it
 * that ran), or the sources through tsx.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveWarehouseGateway } from '../../src/warehouse/warehouse-gateway.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/index.js';
import { fileTempDir } from '../support/test-env.js';

/** The TypeScript runner bin/mintpipe.js falls back to when dist/ is older than the sources. */
const SOURCE_RUNNER = new Set(['tsx', 'esbuild', 'get-tsconfig', 'resolve-pkg-maps']);
/** What a command that does no queue, server or engine work must never load. */
const HEAVY = ['bullmq', 'ioredis', 'chdb', 'fastify', '@bull-board/api', '@bull-board/fastify', 'prom-client', 'pino-pretty', 'cli-progress'];

const scratch = fileTempDir('module-loading');
let runs = 0;

interface TracedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** npm packages the process loaded, the TypeScript runner left out. */
  packages: string[];
}

/** Runs `mintpipe …` as a separate process and lists the packages it loaded. */
function traced(args: string[], env: Record<string, string | undefined> = {}): Promise<TracedRun> {
  const out = join(scratch, `trace-${(runs += 1)}.json`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', './test/support/module-trace.mjs', 'bin/mintpipe.js', ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, MINTPIPE_DATA_DIR: join(scratch, 'data'), ...env, MODULE_TRACE_OUT: out },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const urls = JSON.parse(readFileSync(out, 'utf8')) as string[];
      resolve({ code, stdout, stderr, packages: packagesOf(urls) });
    });
  });
}

function packagesOf(urls: string[]): string[] {
  const names = new Set<string>();
  for (const url of urls) {
    const at = url.lastIndexOf('/node_modules/');
    if (at < 0) continue;
    const name = /^(@[^/]+\/[^/]+|[^/]+)/.exec(url.slice(at + '/node_modules/'.length))?.[1];
    if (name && !SOURCE_RUNNER.has(name)) names.add(name);
  }
  return [...names].sort();
}

describe('commands load only what they use', () => {
  it('mintpipe --help loads commander and no other package', async () => {
    const run = await traced(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: mintpipe');
    expect(run.packages).toEqual(['commander']);
  });

  it("a subcommand's --help loads commander and no other package", async () => {
    const run = await traced(['prompts', 'send', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--allow-create');
    expect(run.packages).toEqual(['commander']);
  });

  it('an unknown option exits 2 having loaded commander and no other package', async () => {
    const run = await traced(['export', '--bogus']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("mintpipe export: unknown option '--bogus'\n");
    expect(run.packages).toEqual(['commander']);
  });

  it("commander's usage errors read as mintpipe's own: one line naming the command, its suggestion kept", async () => {
    const typo = await traced(['export', '--grian', 'day']);
    expect([typo.code, typo.stderr]).toEqual([2, "mintpipe export: unknown option '--grian' (Did you mean --grain?)\n"]);
    // (prompts send's file is optional since --from-query: status's batch is required.)
    const missing = await traced(['prompts', 'status']);
    expect([missing.code, missing.stderr]).toEqual([2, "mintpipe prompts status: missing required argument 'batch'\n"]);
  });

  it('a refused flag value exits 2 with one line, having loaded commander and no other package', async () => {
    const run = await traced(['query', 'SELECT 1', '--format', 'xml']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^mintpipe: --format: expected table, json, csv/)]);
    expect(run.packages).toEqual(['commander']);
  });

  it('a one-shot query on the embedded engine loads the engine but no queue, server or metrics package', async () => {
    const run = await traced(['query', 'SELECT 1 AS one', '--format', 'json'], { MINTPIPE_DATA_DIR: join(scratch, 'one-shot') });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([{ one: 1 }]);
    expect(run.packages).toContain('chdb');
    for (const name of HEAVY.filter((n) => n !== 'chdb')) expect(run.packages).not.toContain(name);
  });

  it('a one-shot query on a current embedded warehouse does not load the ClickHouse client (nor zod or the cron parser)', async () => {
    const dataDir = join(scratch, 'current');
    // The first query finds no warehouse: it creates it and applies the migrations, through the client.
    const first = await traced(['query', 'SELECT count() AS n FROM visitors', '--format', 'json'], { MINTPIPE_DATA_DIR: dataDir });
    expect(first.stderr).toBe('');
    expect(JSON.parse(first.stdout)).toEqual([{ n: 0 }]);
    expect(first.packages).toContain('@clickhouse/client');
    const again = await traced(['query', 'SELECT count() AS n FROM visitors', '--format', 'json'], { MINTPIPE_DATA_DIR: dataDir });
    expect(again.stderr).toBe('');
    expect(JSON.parse(again.stdout)).toEqual([{ n: 0 }]);
    expect(again.packages).toContain('chdb');
    for (const name of ['@clickhouse/client', 'zod', 'cron-parser']) expect(again.packages).not.toContain(name);
  });

  it("status, which calls no API, does not load the HTTP client (ky builds one of fetch's Requests as it loads)", async () => {
    const run = await traced(['status', '--format', 'json'], { MINTPIPE_DATA_DIR: join(scratch, 'status'), REDIS_URL: process.env.REDIS_URL, MINTPIPE_QUEUE_PREFIX: `modload${runs}` });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(JSON.parse(run.stdout)).toMatchObject({ datasets: { readable: true } });
    expect(run.packages).toContain('bullmq');
    expect(run.packages).not.toContain('ky');
  });
});

describe('query through a running installation', () => {
  const dataDir = join(scratch, 'running');
  let warehouse: Warehouse;
  let stopGateway: () => Promise<void>;
  beforeAll(async () => {
    warehouse = await openWarehouse({ database: 'mintpipe', dataDir });
    stopGateway = await serveWarehouseGateway(warehouse, dataDir);
  });
  afterAll(async () => {
    await stopGateway?.();
    await warehouse?.close();
  });

  it('answers through the gateway having loaded commander and no other package (no engine, client, config or logger)', async () => {
    const run = await traced(['query', 'SELECT 1 AS one', '--format', 'json'], { MINTPIPE_DATA_DIR: dataDir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([{ one: 1 }]);
    expect(run.packages).toEqual(['commander']);
  });

  it('a relative MINTPIPE_DATA_DIR with blanks around it finds the same gateway, as the configuration resolves it', async () => {
    const run = await traced(['query', 'SELECT 2 AS two', '--format', 'json'], { MINTPIPE_DATA_DIR: ` ${relative(process.cwd(), dataDir)} ` });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([{ two: 2 }]);
    expect(run.packages).toEqual(['commander']);
  });
});

describe('query with a stale gateway file', () => {
  it('falls back to the embedded engine when the file names a live process and a port that is not a gateway', async () => {
    const dataDir = join(scratch, 'stale-gateway');
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // Something else now listens where the gateway was, under a pid that is alive (this test's).
    const foreign = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>not here</h1>'));
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    const { port } = foreign.address() as AddressInfo;
    writeFileSync(join(dataDir, 'warehouse-gateway.json'), JSON.stringify({ pid: process.pid, url: `http://127.0.0.1:${port}`, token: 'old' }));
    try {
      const run = await traced(['query', 'SELECT 3 AS three', '--format', 'json'], { MINTPIPE_DATA_DIR: dataDir });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual([{ three: 3 }]);
      expect(run.packages).toContain('chdb');
    } finally {
      foreign.close();
    }
  });
});
