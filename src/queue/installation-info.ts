/**
 * What a running mintpipe process (start, worker) actually uses, published in Redis under the
 * queue prefix so that `status` and the dashboard — run from another shell with other settings —
 * show the running installation's budget, schedule, projects and datasets instead of their own.
 *
 * One key per process, set with a TTL and refreshed well before it lapses (a heartbeat): a process
 * that stops cleanly deletes its key; one that dies drops out when a reader in its pid space sees it
 * gone (pid and start time), or else when it stops refreshing and the TTL runs out.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { formatRate, type MintpipeConfig } from '../../config/index.js';
import type { Logger } from '../logger.js';
import { describeWarehouseTarget } from '../../config/warehouse-target.js';
import { currentProcess, isLive, pidSpace } from '../process-identity.js';
import { jobUpstream } from './job-upstream.js';
import type { QueueName } from './queue-names.js';

/** The settings that decide what an installation does; nothing secret. */
export interface InstallationSettings {
  /** Organization-wide analytics budget as `N/DURATION`, or `off`. */
  analyticsRate: string;
  /** Per-project message budget as `N/DURATION`, or `off`. */
  messageRate: string;
  /** The nightly schedule the plan runs on. */
  nightly: { cron: string; timezone: string };
  /** Projects the nightly plan exports (`MINTPIPE_PROJECTS`). */
  projects: string[];
  /** Datasets the nightly plan exports, in priority order (`MINTPIPE_DATASETS`). */
  datasets: string[];
  /** Projects whose assistant threads are fetched (`MINTPIPE_ASSISTANT_THREADS`). */
  assistantThreads: string[];
}

/** Where a process's requests go. */
export interface InstallationUpstream {
  /** MINTLIFY_API_URL as the process uses it. */
  url: string;
  /** True for `start`'s built-in emulator (no MINTLIFY_API_KEY). */
  builtInEmulator: boolean;
  /** HMAC-SHA256 of the API key under the installation's salt (key-fingerprint.ts); null without a key. */
  keyFingerprint: string | null;
}

/** One running process and the settings it runs with. */
export interface InstallationProcess {
  /** The command that runs: `start` or `worker`. */
  /** `command`: a one-shot command (`export --wait`, `prompts send --wait`, …) running workers of its own. */
  role: 'start' | 'worker' | 'command';
  pid: number;
  /** The process's start time in clock ticks (process-identity.ts): with the pid, names it for its whole life. */
  startTicks?: string;
  /** Boot and pid namespace of the pid (process-identity.ts `pidSpace`): a reader in the same one can check it. */
  pidSpace?: string;
  /** Where its requests go; absent in records of versions that did not say. */
  upstream?: InstallationUpstream;
  /** Where its rows land (config/warehouse-target.ts); absent in older records. */
  warehouse?: string;
  /** The queue prefix it works under. */
  queuePrefix?: string;
  host: string;
  /** ISO 8601. */
  startedAt: string;
  /** mintpipe's version (package.json). */
  version: string;
  /** Queues this process works (none for `start --no-workers`). */
  queues: QueueName[];
  /** Whether this process installed the nightly schedule in Redis. */
  scheduler: boolean;
  settings: InstallationSettings;
  /**
   * As listed (not as published): how often the process refreshes its record, and how long ago it
   * last did. A process killed outright on another machine stays listed until its record lapses; a heartbeat late by
   * half a period or more says it may be gone. Absent for records of versions that did not say.
   */
  heartbeat?: { everyMs: number; agoMs: number };
}

/** A heartbeat half a period late or more: the process may be killed or suspended (its record still lives). */
export function heartbeatLate(p: InstallationProcess): boolean {
  return p.heartbeat !== undefined && p.heartbeat.agoMs >= p.heartbeat.everyMs * 1.5;
}

/** The subset of the configuration that settings are read from (never the API key). */
export type SettingsSource = Pick<MintpipeConfig, 'analyticsRate' | 'messageRate'> & {
  export: Pick<MintpipeConfig['export'], 'cron' | 'timezone' | 'projects' | 'datasets' | 'assistantThreads'>;
};

export function describeSettings(config: SettingsSource): InstallationSettings {
  return {
    analyticsRate: formatRate(config.analyticsRate),
    messageRate: formatRate(config.messageRate),
    nightly: { cron: config.export.cron, timezone: config.export.timezone },
    projects: [...config.export.projects],
    datasets: [...config.export.datasets],
    assistantThreads: [...config.export.assistantThreads],
  };
}

let cachedVersion: string | undefined;

/** mintpipe's version from package.json (from src/ or from a compiled dist/). */
export function mintpipeVersion(): string {
  if (cachedVersion) return cachedVersion;
  const here = dirname(fileURLToPath(import.meta.url));
  for (const path of [join(here, '..', '..', 'package.json'), join(here, '..', '..', '..', 'package.json')]) {
    if (!existsSync(path)) continue;
    try {
      const pkg = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'mintpipe' && pkg.version) return (cachedVersion = pkg.version);
    } catch {
      /* not ours: look further */
    }
  }
  return (cachedVersion = 'unknown');
}

export interface PublishOptions {
  /** How long the key lives without a refresh: a dead process drops out after this. @default 30000 */
  ttlMs?: number;
  /** How often the key is refreshed; well under `ttlMs`, so one slow refresh does not drop a live process. @default ttlMs / 3 */
  refreshMs?: number;
  /** Told about a refresh that failed (Redis away); the next one tries again. @default ignored */
  onRefreshError?: (err: unknown) => void;
}

export interface Publication {
  /** The Redis key holding this process's record. */
  key: string;
  /** Stops refreshing and deletes the record (a clean stop). Safe to call twice. */
  stop(): Promise<void>;
}

const StoredProcess = z.object({
  role: z.enum(['start', 'worker', 'command']),
  pid: z.number(),
  startTicks: z.string().optional(),
  pidSpace: z.string().optional(),
  upstream: z.object({ url: z.string(), builtInEmulator: z.boolean(), keyFingerprint: z.string().nullable() }).optional(),
  warehouse: z.string().optional(),
  queuePrefix: z.string().optional(),
  host: z.string(),
  startedAt: z.string(),
  version: z.string(),
  queues: z.array(z.enum(['export', 'prompts'])),
  scheduler: z.boolean(),
  settings: z.object({
    analyticsRate: z.string(),
    messageRate: z.string(),
    nightly: z.object({ cron: z.string(), timezone: z.string() }),
    projects: z.array(z.string()),
    datasets: z.array(z.string()),
    assistantThreads: z.array(z.string()),
  }),
  // Written by publishInstallation since the heartbeat was shown; older records lack it.
  refresh: z.object({ everyMs: z.number().positive(), ttlMs: z.number().positive() }).optional(),
});

function keyPrefix(queuePrefix: string): string {
  return `${queuePrefix}:installation:`;
}

/** What decides where a process's work goes, beyond its settings. */
export interface ProcessTargets {
  upstream: InstallationUpstream;
  warehouse: string;
  queuePrefix: string;
}

/** The process's record for `role`, as `publishInstallation` stores it. */
export function describeProcess(
  role: InstallationProcess['role'],
  config: SettingsSource,
  parts: { queues: QueueName[]; scheduler: boolean; startedAt?: Date; targets?: ProcessTargets },
): InstallationProcess {
  return {
    role,
    pid: process.pid,
    ...(currentProcess().startTicks === undefined ? {} : { startTicks: currentProcess().startTicks }),
    ...(pidSpace() === undefined ? {} : { pidSpace: pidSpace() }),
    ...(parts.targets ?? {}),
    host: hostname(),
    startedAt: (parts.startedAt ?? new Date()).toISOString(),
    version: mintpipeVersion(),
    queues: [...parts.queues],
    scheduler: parts.scheduler,
    settings: describeSettings(config),
  };
}

/** Publishes `info` under the queue prefix and keeps it alive until `stop()`. */
export async function publishInstallation(redis: Redis, queuePrefix: string, info: InstallationProcess, options: PublishOptions = {}): Promise<Publication> {
  const ttlMs = options.ttlMs ?? 30_000;
  const refreshMs = options.refreshMs ?? Math.max(1, Math.floor(ttlMs / 3));
  // pid and host alone could repeat (containers all run pid 1 on hosts named alike).
  const key = `${keyPrefix(queuePrefix)}${info.host}:${info.pid}:${randomUUID().slice(0, 8)}`;
  const { heartbeat: _listedOnly, ...published } = info;
  const value = JSON.stringify({ ...published, refresh: { everyMs: refreshMs, ttlMs } });
  await redis.set(key, value, 'PX', ttlMs);
  let refreshing = false;
  const timer = setInterval(() => {
    // Redis commands wait while it is away; never stack refreshes behind a pending one.
    if (refreshing) return;
    refreshing = true;
    redis
      .set(key, value, 'PX', ttlMs)
      .catch((err: unknown) => options.onRefreshError?.(err))
      .finally(() => {
        refreshing = false;
      });
  }, refreshMs);
  timer.unref();
  let stopping: Promise<void> | undefined;
  return {
    key,
    stop() {
      stopping ??= (async () => {
        clearInterval(timer);
        await redis.del(key);
      })();
      return stopping;
    },
  };
}

/** Every process currently published under the queue prefix, oldest first. */
export async function listInstallation(redis: Redis, queuePrefix: string): Promise<InstallationProcess[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${keyPrefix(queuePrefix)}*`, 'COUNT', 200);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  if (keys.length === 0) return [];
  // Each key's time to live says how long ago its process last refreshed it.
  const [values, ttls] = await Promise.all([redis.mget(...keys), Promise.all(keys.map((key) => redis.pttl(key)))]);
  const processes: InstallationProcess[] = [];
  const gone: string[] = [];
  values.forEach((value, i) => {
    // Expired between SCAN and MGET, or not ours: skip it.
    if (!value) return;
    let parsed;
    try {
      parsed = StoredProcess.safeParse(JSON.parse(value));
    } catch {
      parsed = undefined;
    }
    // A record another version wrote in another shape is left out rather than shown wrong.
    if (!parsed?.success) return;
    const { refresh, ...listed } = parsed.data;
    // Killed outright, its record would stay until it lapses: where its pid can be checked, it goes now.
    if (isGone(listed)) {
      gone.push(keys[i]!);
      return;
    }
    const remainingMs = ttls[i] ?? -1;
    processes.push(refresh && remainingMs >= 0 ? { ...listed, heartbeat: { everyMs: refresh.everyMs, agoMs: Math.max(0, refresh.ttlMs - remainingMs) } } : listed);
  });
  if (gone.length > 0) await redis.del(...gone);
  return processes.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.pid - b.pid);
}

/** A record from this pid space whose process (pid and start time) is no longer running. */
function isGone(record: Pick<InstallationProcess, 'pid' | 'startTicks' | 'pidSpace'>): boolean {
  return record.pidSpace !== undefined && record.pidSpace === pidSpace() && record.startTicks !== undefined && !isLive(record);
}

/** What `publishProcess` reads off a running command's runtime. */
export interface PublishingRuntime {
  readonly redis: Redis;
  readonly config: SettingsSource & Pick<MintpipeConfig, 'queuePrefix' | 'api' | 'clickhouse' | 'dataDir'>;
  readonly logger: Logger;
  onClose(fn: () => Promise<void> | void): void;
}

/**
 * Publishes this process (a start, a worker, or a command running workers of its own) for as long
 * as `runtime` is open: the record is refreshed until the runtime closes, then deleted.
 */
export async function publishProcess(
  runtime: PublishingRuntime,
  role: InstallationProcess['role'],
  parts: { queues: QueueName[]; scheduler: boolean; builtInEmulator?: boolean },
): Promise<Publication> {
  const { config } = runtime;
  // Where its requests go, as the jobs it runs compare it (job-upstream.ts).
  const { url, keyFingerprint } = await jobUpstream(runtime.redis, config.queuePrefix, config.api);
  const targets: ProcessTargets = {
    upstream: { url, builtInEmulator: parts.builtInEmulator === true, keyFingerprint },
    warehouse: describeWarehouseTarget(config),
    queuePrefix: config.queuePrefix,
  };
  const publication = await publishInstallation(runtime.redis, config.queuePrefix, describeProcess(role, config, { ...parts, targets }), {
    onRefreshError: (err) => runtime.logger.warn({ event: 'installation_refresh_failed', err }, 'could not refresh this process in Redis (status may miss it)'),
  });
  runtime.onClose(() => publication.stop());
  return publication;
}
