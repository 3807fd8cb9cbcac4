/**
 * The production compose file and Dockerfile, checked without Docker (this machine has no compose
 * plugin): the structure is read by indentation from a YAML kept deliberately simple, and the
 * commands and settings it uses are checked against the CLI and config they drive.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const compose = readFileSync('docker-compose.yml', 'utf8');
const dockerfile = readFileSync('Dockerfile', 'utf8');
const dockerignore = readFileSync('.dockerignore', 'utf8');
const configSource = readFileSync('config/index.ts', 'utf8');

/** Lines without comments and blank lines, with their indentation. */
const lines = compose
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))
  .map((l) => ({ indent: l.length - l.trimStart().length, text: l.trim() }));

/** The text under `key:` at `indent` inside `within` (all lines by default), up to the next sibling. */
function section(key: string, indent: number, within = lines): typeof lines {
  const start = within.findIndex((l) => l.indent === indent && (l.text === `${key}:` || l.text.startsWith(`${key}: `)));
  if (start === -1) return [];
  const out: typeof lines = [];
  for (const l of within.slice(start + 1)) {
    if (l.indent <= indent) break;
    out.push(l);
  }
  return out;
}

const childKeys = (block: typeof lines, indent: number): string[] =>
  block.filter((l) => l.indent === indent && /^[\w.-]+:/.test(l.text)).map((l) => l.text.slice(0, l.text.indexOf(':')));
const services = section('services', 0);
const service = (name: string) => section(name, 2, services);
const text = (block: typeof lines) => block.map((l) => l.text).join('\n');

/** Environment variable names set in an `x-…-env` block. */
function envKeys(anchorKey: string): string[] {
  return childKeys(section(anchorKey, 0), 2).filter((k) => k !== '<<');
}

describe('docker-compose.yml', () => {
  it('uses spaces only, and every alias names a defined anchor', () => {
    expect(compose).not.toMatch(/\t/);
    const anchors = new Set([...compose.matchAll(/&([\w-]+)/g)].map((m) => m[1]));
    const aliases = [...compose.matchAll(/\*([\w-]+)/g)].map((m) => m[1]).filter((a) => a !== undefined && /^[a-z]/.test(a) && compose.includes(`<<: *${a}`));
    expect(aliases.length).toBeGreaterThan(0);
    for (const alias of aliases) expect(anchors, alias).toContain(alias);
  });

  it('has redis, clickhouse, worker, scheduler and dashboard services', () => {
    expect(childKeys(services, 2).sort()).toEqual(['clickhouse', 'dashboard', 'redis', 'scheduler', 'worker']);
  });

  it('runs the official redis:7 with append-only on and its data on a volume', () => {
    const redis = text(service('redis'));
    expect(redis).toMatch(/^image: redis:7$/m);
    expect(redis).toMatch(/"--appendonly", "yes"/);
    expect(redis).toMatch(/^- redis-data:\/data$/m);
    expect(redis).toMatch(/redis-cli", "ping"/);
  });

  it('runs clickhouse/clickhouse-server with its data on a volume and raised file limits', () => {
    const clickhouse = service('clickhouse');
    expect(text(clickhouse)).toMatch(/^image: clickhouse\/clickhouse-server:\d+/m);
    expect(text(clickhouse)).toMatch(/^- clickhouse-data:\/var\/lib\/clickhouse$/m);
    expect(text(section('nofile', 6, section('ulimits', 4, clickhouse)))).toMatch(/soft: 262144[\s\S]*hard: 262144/);
  });

  it('declares the named volumes it mounts', () => {
    expect(childKeys(section('volumes', 0), 2).sort()).toEqual(['clickhouse-data', 'clickhouse-logs', 'redis-data']);
  });

  it('keeps workers scalable: no container name, no published ports', () => {
    const worker = text(service('worker'));
    expect(worker).toMatch(/^command: \["worker"\]$/m);
    expect(worker).not.toMatch(/container_name|ports:/);
    expect(compose).not.toMatch(/container_name/);
  });

  it('runs the scheduler as start without workers or dashboard, and the dashboard on all interfaces behind a required token', () => {
    expect(text(service('scheduler'))).toMatch(/^command: \["start", "--no-workers", "--no-dashboard"\]$/m);
    const dashboard = text(service('dashboard'));
    expect(dashboard).toMatch(/^command: \["dashboard", "--host", "0\.0\.0\.0", "--port", "3000"\]$/m);
    expect(dashboard).toMatch(/^MINTPIPE_DASHBOARD_TOKEN: \$\{MINTPIPE_DASHBOARD_TOKEN:\?/m);
    expect(dashboard).toMatch(/^- "\$\{MINTPIPE_DASHBOARD_PUBLISH:-127\.0\.0\.1:3000\}:3000"$/m);
  });

  it('requires the API key from the environment for the roles that call the API, and gives none to the dashboard', () => {
    expect(text(section('x-mintpipe-api-env', 0))).toMatch(/^MINTLIFY_API_KEY: \$\{MINTLIFY_API_KEY:\?/m);
    expect(text(service('worker'))).toMatch(/<<: \*mintpipe-api-env/);
    expect(text(service('scheduler'))).toMatch(/<<: \*mintpipe-api-env/);
    expect(text(service('dashboard'))).not.toMatch(/mintpipe-api-env|MINTLIFY_API_KEY/);
    expect(compose).not.toMatch(/mint_[A-Za-z0-9]/);
  });

  it('points every role at the shared Redis and the ClickHouse server', () => {
    const env = text(section('x-mintpipe-env', 0));
    expect(env).toMatch(/^REDIS_URL: redis:\/\/redis:6379$/m);
    expect(env).toMatch(/^CLICKHOUSE_URL: \$\{CLICKHOUSE_URL:-http:\/\/clickhouse:8123\}$/m);
  });

  it('sets only environment variables that mintpipe reads', () => {
    const keys = [...envKeys('x-mintpipe-env'), ...envKeys('x-mintpipe-api-env'), 'MINTPIPE_DASHBOARD_TOKEN'];
    expect(keys.length).toBeGreaterThan(10);
    for (const key of keys) expect(configSource, key).toMatch(new RegExp(`'${key}'|env\\.${key}\\b`));
  });

  it('closes every ${…} interpolation', () => {
    for (const line of compose.split('\n')) {
      const opened = (line.match(/\$\{/g) ?? []).length;
      const closed = [...line.matchAll(/\$\{[A-Z_]+(?::?[-?][^}]*)?\}/g)].length;
      expect(closed, line).toBe(opened);
    }
  });

  it('uses CLI flags that exist', async () => {
    const start = await runCli(['start', '--help'], {});
    expect(start.code).toBe(0);
    expect(start.stdout).toContain('--no-workers');
    expect(start.stdout).toContain('--no-dashboard');
    const dashboard = await runCli(['dashboard', '--help'], {});
    expect(dashboard.code).toBe(0);
    expect(dashboard.stdout).toContain('--host');
    expect(dashboard.stdout).toContain('--port');
  });
});

describe('Dockerfile', () => {
  it('builds on node:20-bookworm-slim, compiles, and installs production dependencies only', () => {
    expect(dockerfile).toMatch(/^FROM node:20-bookworm-slim AS build$/m);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(dockerfile).toMatch(/^FROM node:20-bookworm-slim$/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev\b/m);
  });

  it('ships the compiled code with the dashboard page and runs it as a non-root user', () => {
    expect(dockerfile).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    expect(dockerfile).toMatch(/^COPY src\/ops\/page \.\/dist\/src\/ops\/page$/m);
    expect(dockerfile).toMatch(/MINTPIPE_USE_DIST=1/);
    const user = /^USER (\S+)$/m.exec(dockerfile)?.[1];
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)$/);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "bin\/mintpipe\.js"\]$/m);
  });

  it('keeps local data, dependencies and env files out of the build context', () => {
    const ignored = dockerignore.split('\n').map((l) => l.trim());
    for (const entry of ['node_modules', '.data', '.env', 'dist', 'test-artifacts']) expect(ignored).toContain(entry);
  });
});
