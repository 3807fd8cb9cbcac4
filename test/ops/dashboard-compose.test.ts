/**
 * The production compose file and Dockerfile, checked without starting anything. docker-compose.yml
 * is read by a real YAML parser (merge keys resolved, as Compose does), so services, images,
 * healthchecks, environment and volumes are asserted as data; when the Compose plugin is present,
 * `docker compose config` must accept the file too. The commands and settings it uses are checked
 * against the CLI and config they drive.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { parseDocument } from 'yaml';
import { loadConfig } from '../../config/index.js';
import { commands } from '../../src/cli/commands/index.js';
import { runCli } from '../support/run-cli.js';

const composeText = readFileSync('docker-compose.yml', 'utf8');
const dockerfile = readFileSync('Dockerfile', 'utf8');
const dockerignore = readFileSync('.dockerignore', 'utf8');
const configSource = readFileSync('config/index.ts', 'utf8');

const document = parseDocument(composeText, { merge: true, uniqueKeys: true });

interface Healthcheck {
  test: string[];
  interval: string;
  timeout: string;
  retries: number;
}
interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: Healthcheck;
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  init?: boolean;
  stop_grace_period?: string;
  container_name?: string;
  ulimits?: Record<string, { soft: number; hard: number }>;
}
interface Compose {
  name: string;
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const compose = document.toJS({ maxAliasCount: 100 }) as Compose;
const USERS_FILE = 'config/clickhouse/users.d/mintpipe.xml';

/** A value as Compose gives it with the defaults taken and each required variable set to a placeholder. */
function resolved(value: string): string {
  return value.replace(/\$\{([A-Z_][A-Z0-9_]*)(?::([-?])([^}]*))?\}/g, (_m, name: string, kind?: string, rest?: string) =>
    kind === '-' ? (rest ?? '') : name === 'MINTLIFY_API_KEY' ? 'mint_placeholder_0123456789' : `placeholder-${name.toLowerCase()}-0123456789`,
  );
}
const service = (name: string): Service => {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};
const MINTPIPE_ROLES = ['worker', 'scheduler', 'dashboard'];
const API_ROLES = ['worker', 'scheduler'];

/** The variable a `${NAME…}` value reads, and whether Compose stops when it is unset (`:?`). */
function interpolation(value: string | undefined): { name: string; required: boolean } | undefined {
  const match = /^\$\{([A-Z_][A-Z0-9_]*)(:?[-?])?/.exec(value ?? '');
  return match ? { name: match[1]!, required: match[2] === ':?' } : undefined;
}

/** Every string in the parsed file, with its path, for checks that hold everywhere. */
function strings(value: unknown, path = ''): Array<{ path: string; text: string }> {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, path ? `${path}.${k}` : k));
  return [];
}

/** Duration in Compose/mintpipe form (`45s`, `2m`) in seconds. */
function seconds(duration: string | undefined): number {
  const match = /^(\d+)(s|m)$/.exec(duration ?? '');
  if (!match) throw new Error(`not a duration: ${duration}`);
  return Number(match[1]) * (match[2] === 'm' ? 60 : 1);
}

function composePlugin(): { present: true } | { present: false; reason: string } {
  const probe = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.error) return { present: false, reason: `no docker command (${probe.error.message})` };
  if (probe.status !== 0) return { present: false, reason: 'docker has no compose plugin' };
  return { present: true };
}
const plugin = composePlugin();

describe('docker-compose.yml', () => {
  it('parses as YAML without errors or warnings, every alias naming a defined anchor', () => {
    expect(document.errors).toEqual([]);
    expect(document.warnings).toEqual([]);
    expect(composeText).not.toMatch(/\t/);
    expect(compose.name).toBe('mintpipe');
  });

  it('has redis, clickhouse, worker, scheduler and dashboard services', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['clickhouse', 'dashboard', 'redis', 'scheduler', 'worker']);
  });

  it('runs the official redis:7 with append-only on, its data on a volume, and a ping healthcheck', () => {
    const redis = service('redis');
    expect(redis.image).toBe('redis:7');
    expect(redis.command?.slice(0, 3)).toEqual(['redis-server', '--appendonly', 'yes']);
    expect(redis.command?.join(' ')).toContain('--maxmemory-policy noeviction');
    expect(redis.volumes).toEqual(['redis-data:/data']);
    expect(redis.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(redis.restart).toBe('unless-stopped');
  });

  it('runs clickhouse/clickhouse-server with its data on a volume, raised file limits and a ping healthcheck', () => {
    const clickhouse = service('clickhouse');
    expect(clickhouse.image).toMatch(/^clickhouse\/clickhouse-server:\d+(\.\d+)*$/);
    expect(clickhouse.volumes).toEqual([
      'clickhouse-data:/var/lib/clickhouse',
      'clickhouse-logs:/var/log/clickhouse-server',
      `./${USERS_FILE}:/etc/clickhouse-server/users.d/mintpipe.xml:ro`,
    ]);
    expect(clickhouse.ulimits?.nofile).toEqual({ soft: 262144, hard: 262144 });
    expect(clickhouse.healthcheck?.test.at(-1)).toBe('http://127.0.0.1:8123/ping');
    expect(interpolation(clickhouse.environment?.CLICKHOUSE_PASSWORD)).toEqual({ name: 'CLICKHOUSE_PASSWORD', required: true });
    expect(interpolation(clickhouse.environment?.CLICKHOUSE_READER_PASSWORD)).toEqual({ name: 'CLICKHOUSE_READER_PASSWORD', required: true });
  });

  it('gives ClickHouse the app user and a read-only user at readonly=2 with capped limits, passwords from its environment', () => {
    const xml = readFileSync(USERS_FILE, 'utf8');
    const passwordEnv = [...xml.matchAll(/<password from_env="([A-Z_]+)"\/>/g)].map((m) => m[1]);
    expect(passwordEnv).toEqual(['CLICKHOUSE_PASSWORD', 'CLICKHOUSE_READER_PASSWORD']);
    expect(Object.keys(service('clickhouse').environment ?? {}).sort()).toEqual(passwordEnv);
    expect(xml).toMatch(/<users>\s*<mintpipe>[\s\S]*<\/mintpipe>\s*<mintpipe_reader>[\s\S]*<profile>mintpipe_reader<\/profile>/);
    // readonly=1 would refuse the limits mintpipe sets on each query (warehouse-server.test.ts).
    expect(/<mintpipe_reader>\s*<readonly>(\d)<\/readonly>/.exec(xml)?.[1]).toBe('2');
    for (const limit of ['max_execution_time', 'max_result_rows', 'max_memory_usage']) expect(xml).toMatch(new RegExp(`<constraints>[\\s\\S]*<${limit}><max>\\d+</max></${limit}>`));
  });

  it('gives every healthcheck an interval, a timeout shorter than it, and retries', () => {
    const checked = Object.entries(compose.services).filter(([, s]) => s.healthcheck);
    expect(checked.map(([name]) => name).sort()).toEqual(['clickhouse', 'dashboard', 'redis']);
    for (const [name, s] of checked) {
      expect(s.healthcheck!.test[0], name).toBe('CMD');
      expect(seconds(s.healthcheck!.timeout), name).toBeLessThan(seconds(s.healthcheck!.interval));
      expect(s.healthcheck!.retries, name).toBeGreaterThanOrEqual(3);
    }
  });

  it('declares exactly the named volumes it mounts', () => {
    const mounted = Object.values(compose.services).flatMap((s) => (s.volumes ?? []).map((v) => v.split(':')[0]!).filter((v) => !v.startsWith('.')));
    expect(Object.keys(compose.volumes).sort()).toEqual([...new Set(mounted)].sort());
    expect(Object.keys(compose.volumes).sort()).toEqual(['clickhouse-data', 'clickhouse-logs', 'redis-data']);
  });

  it('runs the three mintpipe roles from one image, after Redis and ClickHouse are healthy, with a stop grace beyond the shutdown grace', () => {
    for (const name of MINTPIPE_ROLES) {
      const role = service(name);
      expect(role.image, name).toBe('${MINTPIPE_IMAGE:-mintpipe:latest}');
      expect(role.build, name).toBe('.');
      expect(role.init, name).toBe(true);
      expect(role.depends_on, name).toEqual({ redis: { condition: 'service_healthy' }, clickhouse: { condition: 'service_healthy' } });
      const grace = /:-(\w+)\}$/.exec(role.environment?.MINTPIPE_SHUTDOWN_GRACE ?? '')?.[1];
      expect(seconds(role.stop_grace_period), name).toBeGreaterThan(seconds(grace));
    }
  });

  it('keeps workers scalable: no container name, no published ports', () => {
    expect(service('worker').command).toEqual(['worker']);
    expect(service('worker').ports).toBeUndefined();
    for (const [name, s] of Object.entries(compose.services)) expect(s.container_name, name).toBeUndefined();
  });

  it('runs the scheduler as start without workers or dashboard, and the dashboard on all interfaces behind a required token, published on loopback', () => {
    expect(service('scheduler').command).toEqual(['start', '--no-workers', '--no-dashboard']);
    expect(service('scheduler').ports).toBeUndefined();
    const dashboard = service('dashboard');
    expect(dashboard.command).toEqual(['dashboard', '--host', '0.0.0.0', '--port', '3000']);
    expect(interpolation(dashboard.environment?.MINTPIPE_DASHBOARD_TOKEN)).toEqual({ name: 'MINTPIPE_DASHBOARD_TOKEN', required: true });
    expect(dashboard.ports).toEqual(['${MINTPIPE_DASHBOARD_PUBLISH:-127.0.0.1:3000}:3000']);
    expect(dashboard.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:3000/healthz');
  });

  it('requires the API key from the environment for the roles that call the API, and gives none to the dashboard', () => {
    for (const name of API_ROLES) {
      expect(interpolation(service(name).environment?.MINTLIFY_API_KEY), name).toEqual({ name: 'MINTLIFY_API_KEY', required: true });
    }
    const dashboardEnv = Object.keys(service('dashboard').environment ?? {});
    expect(dashboardEnv.filter((key) => key.startsWith('MINTLIFY_'))).toEqual([]);
    for (const name of ['redis', 'clickhouse']) expect(Object.keys(service(name).environment ?? {}), name).not.toContain('MINTLIFY_API_KEY');
    for (const { path, text } of strings(compose)) expect(text, path).not.toMatch(/mint_[A-Za-z0-9]/);
  });

  it('points every role at the shared Redis and the ClickHouse server, the dashboard as the read-only user', () => {
    for (const name of MINTPIPE_ROLES) {
      const env = service(name).environment ?? {};
      expect(env.REDIS_URL, name).toBe('redis://redis:6379');
      expect(env.CLICKHOUSE_URL, name).toBe('${CLICKHOUSE_URL:-http://clickhouse:8123}');
      const reader = name === 'dashboard';
      expect(interpolation(env.CLICKHOUSE_PASSWORD), name).toEqual({ name: reader ? 'CLICKHOUSE_READER_PASSWORD' : 'CLICKHOUSE_PASSWORD', required: true });
      expect(env.CLICKHOUSE_USER, name).toBe(reader ? 'mintpipe_reader' : '${CLICKHOUSE_USER:-mintpipe}');
    }
  });

  it("runs each role with a command and options the CLI has, and an environment mintpipe's config accepts", () => {
    const program = new Command('mintpipe').exitOverride();
    for (const register of commands) register(program);
    for (const name of MINTPIPE_ROLES) {
      const [command, ...args] = service(name).command ?? [];
      const sub = program.commands.find((c) => c.name() === command);
      expect(sub, `${name}: ${command}`).toBeDefined();
      const flags = new Set(sub!.options.flatMap((o) => [o.long, o.short].filter(Boolean)));
      for (const arg of args.filter((a) => a.startsWith('-'))) expect([...flags], `${name}: ${arg}`).toContain(arg);
      // Options that take a value are given one.
      for (const [i, arg] of args.entries()) {
        const option = sub!.options.find((o) => o.long === arg);
        if (option?.required) expect(args[i + 1], `${name}: ${arg}`).toMatch(/^[^-]/);
      }
      const env = Object.fromEntries(Object.entries(service(name).environment ?? {}).map(([key, value]) => [key, resolved(value)]));
      expect(() => loadConfig(env), name).not.toThrow();
      expect(loadConfig(env).clickhouse.url, name).toBe('http://clickhouse:8123');
    }
  });

  it('sets only environment variables that mintpipe reads', () => {
    const keys = new Set(MINTPIPE_ROLES.flatMap((name) => Object.keys(service(name).environment ?? {})));
    expect(keys.size).toBeGreaterThan(10);
    for (const key of keys) expect(configSource, key).toMatch(new RegExp(`'${key}'|env\\.${key}\\b`));
  });

  it('closes every ${…} interpolation and names a variable in each', () => {
    const values = strings(compose).filter(({ text }) => text.includes('$'));
    expect(values.length).toBeGreaterThan(10);
    for (const { path, text } of values) {
      const opened = (text.match(/\$\{/g) ?? []).length;
      const closed = [...text.matchAll(/\$\{[A-Z_][A-Z0-9_]*(?::?[-?][^}]*)?\}/g)].length;
      expect(closed, `${path}: ${text}`).toBe(opened);
    }
  });

  // `docker compose config` is a second opinion where the compose plugin exists (not on CI's machine,
  // which has no Docker engine); the file is always checked by the parser above.
  if (!plugin.present) process.stderr.write(`dashboard-compose: docker compose config not run: ${plugin.reason}\n`);
  if (plugin.present) describe('docker compose config', () => {
    const env = { ...process.env, CLICKHOUSE_PASSWORD: 'x', MINTLIFY_API_KEY: 'placeholder', MINTPIPE_DASHBOARD_TOKEN: 'placeholder-token-0123456789' };
    it('accepts the file with the required settings given', () => {
      const run = spawnSync('docker', ['compose', '-f', 'docker-compose.yml', 'config', '--quiet'], { encoding: 'utf8', env, timeout: 30_000 });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    });

    it('stops with a message naming the API key when it is missing', () => {
      const { MINTLIFY_API_KEY: _omitted, ...without } = env;
      const run = spawnSync('docker', ['compose', '-f', 'docker-compose.yml', 'config', '--quiet'], { encoding: 'utf8', env: without, timeout: 30_000 });
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain('MINTLIFY_API_KEY');
    });
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
    expect(dockerfile).toMatch(/^COPY bin \.\/bin$/m);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(dockerfile).toMatch(/^FROM node:20-bookworm-slim$/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev\b/m);
  });

  it('ships the compiled code with the dashboard page and runs it as a non-root user', () => {
    expect(dockerfile).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    // Next to the bundle (dist/cli/main.cjs), where pageDirectory() looks first.
    expect(dockerfile).toMatch(/^COPY src\/ops\/page \.\/dist\/cli\/page$/m);
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
