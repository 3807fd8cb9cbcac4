/**
 * Before a one-shot command hands work to running processes, it checks that they would do it where
 * the user meant: the same upstream (URL and key, by fingerprint) for `export` and `prompts`, the
 * same warehouse for `status` and `plan`. A difference there refuses (exit 2) in one line naming
 * the setting and both values; a difference in budgets or datasets only warns.
 */
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { MintpipeConfig } from '../../config/index.js';
import { describeWarehouseTarget } from '../../config/warehouse-target.js';
import { UsageError } from '../errors.js';
import { isLive } from '../process-identity.js';
import { configuredEngine } from '../warehouse/factory.js';
import { describeSettings, listInstallation, type InstallationProcess } from '../queue/installation-info.js';
import { jobUpstream } from '../queue/job-upstream.js';
import { shortFingerprint } from '../queue/key-fingerprint.js';
import type { QueueName } from '../queue/queue-names.js';
import { namesUpstream } from './shell-upstream.js';

const HOW = 'stop the running installation, or use its settings';

/** A record of this host whose pid no longer names the process that published it is left out. */
function alive(p: InstallationProcess): boolean {
  if (p.host !== hostname() || p.startTicks === undefined) return true;
  return isLive({ pid: p.pid, startTicks: p.startTicks });
}

function who(p: InstallationProcess): string {
  return `${p.role} pid ${p.pid}`;
}

/** The published processes that serve `queue` (all of them when `queue` is undefined), alive. */
export async function runningProcesses(redis: Redis, queuePrefix: string, queue?: QueueName): Promise<InstallationProcess[]> {
  const all = await listInstallation(redis, queuePrefix);
  return all.filter((p) => (queue === undefined || p.queues.includes(queue)) && alive(p));
}

/**
 * Refuses to hand work of `queue` to running workers that send to another upstream than this
 * shell's. A shell that names no upstream at all (neither MINTLIFY_API_URL nor MINTLIFY_API_KEY
 * set) uses the running installation's.
 */
export async function checkUpstreamHandOver(redis: Redis, config: MintpipeConfig, queue: QueueName, env: Record<string, string | undefined> = process.env): Promise<void> {
  const processes = await runningProcesses(redis, config.queuePrefix, queue);
  if (processes.length === 0) return;
  if (namesUpstream(config, env)) {
    const mine = (await jobUpstream(redis, config.queuePrefix, config.api)).keyFingerprint;
    for (const p of processes) {
      if (!p.upstream) continue;
      const theirs = `${p.upstream.url}${p.upstream.builtInEmulator ? ' (the built-in emulator)' : ''}`;
      if (p.upstream.url !== config.api.url) {
        throw new UsageError(`MINTLIFY_API_URL: this shell sends to ${config.api.url}, the running ${who(p)} sends to ${theirs}; nothing was handed over: ${HOW}`);
      }
      if (config.api.key !== undefined && p.upstream.keyFingerprint !== mine) {
        throw new UsageError(
          `MINTLIFY_API_KEY: this shell's key has fingerprint ${shortFingerprint(mine)}, the running ${who(p)} uses ${shortFingerprint(p.upstream.keyFingerprint)}; nothing was handed over: ${HOW}`,
        );
      }
    }
  }
  warnOnSettings(processes, config, env);
}

/** Refuses to read through (or beside) running processes that write to another warehouse. */
export async function checkWarehouse(redis: Redis, config: MintpipeConfig): Promise<void> {
  const processes = await runningProcesses(redis, config.queuePrefix);
  const mine = describeWarehouseTarget(config);
  for (const p of processes) {
    if (p.warehouse === undefined || p.warehouse === mine) continue;
    // Another process's warehouse is known by its description (describeWarehouseTarget) only.
    const setting = p.warehouse.startsWith('server') ? 'CLICKHOUSE_URL' : configuredEngine(config).setting;
    throw new UsageError(`${setting}: this shell reads the warehouse ${mine}, the running ${who(p)} writes to ${p.warehouse}: ${HOW}`);
  }
}

const SETTING_VARIABLES = { analyticsRate: 'MINTPIPE_ANALYTICS_RATE', messageRate: 'MINTPIPE_MESSAGE_RATE', datasets: 'MINTPIPE_DATASETS' } as const;

/**
 * Budgets and datasets that differ only change how the work is paced or planned: a warning line,
 * for the settings this shell sets itself (a default that differs from the running one's, such as
 * the built-in emulator's unpaced budget, is not the user's choice to warn about).
 */
function warnOnSettings(processes: InstallationProcess[], config: MintpipeConfig, env: Record<string, string | undefined>): void {
  const mine = describeSettings(config);
  for (const p of processes) {
    for (const [k, variable] of Object.entries(SETTING_VARIABLES) as Array<[keyof typeof SETTING_VARIABLES, string]>) {
      if (!env[variable]?.trim() || String(p.settings[k]) === String(mine[k])) continue;
      process.stderr.write(`warning: the running ${who(p)} uses ${variable} ${String(p.settings[k])}, this shell ${String(mine[k])}: the work runs with the running one's\n`);
    }
  }
}
