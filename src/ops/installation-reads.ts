/**
 * The running installation as its processes publish it (src/queue/installation-info.ts), for
 * `status` and the dashboard: which processes run, and the settings that count — those of the
 * processes that act on them, not of the shell or dashboard reading them. When nothing runs, the
 * settings shown are the ones this process would start with, and it says so.
 */
import type { Redis } from 'ioredis';
import { parseRate, type RateLimit } from '../../config/index.js';
import { describeSettings, listInstallation, type InstallationProcess, type InstallationSettings, type SettingsSource } from '../queue/installation-info.js';

export interface InstallationView {
  /** True when at least one start or worker process is published (alive within its TTL). */
  running: boolean;
  processes: InstallationProcess[];
  /** `running`: read from the running processes; `local`: what this process would run with. */
  settingsFrom: 'running' | 'local';
  settings: InstallationSettings;
  /** Settings the running processes disagree on, one sentence each. */
  disagreements: string[];
}

type SettingKey = keyof InstallationSettings;

/** Which processes act on each setting: their value is the one that counts. */
function actsOn(key: SettingKey, p: InstallationProcess): boolean {
  switch (key) {
    case 'messageRate':
      return p.queues.includes('prompts');
    case 'nightly':
      return p.scheduler;
    default:
      // The analytics budget is taken, and the nightly plan (projects, datasets, threads) runs, in export workers.
      return p.queues.includes('export');
  }
}

const LABELS: Record<SettingKey, string> = {
  analyticsRate: 'analytics budget',
  messageRate: 'message budget',
  nightly: 'nightly schedule',
  projects: 'projects',
  datasets: 'datasets',
  assistantThreads: 'assistant-thread projects',
};

function shown(value: InstallationSettings[SettingKey]): string {
  if (Array.isArray(value)) return value.length ? value.join(',') : 'none';
  if (typeof value === 'object') return `"${value.cron}" ${value.timezone}`;
  return value;
}

/** Reads the published processes and resolves the settings that count. */
export async function readInstallation(redis: Redis, queuePrefix: string, local: SettingsSource): Promise<InstallationView> {
  const processes = await listInstallation(redis, queuePrefix);
  const own = describeSettings(local);
  if (processes.length === 0) return { running: false, processes, settingsFrom: 'local', settings: own, disagreements: [] };
  const settings = { ...own };
  const disagreements: string[] = [];
  for (const key of Object.keys(LABELS) as SettingKey[]) {
    const acting = processes.filter((p) => actsOn(key, p));
    // No process acts on it (say, no scheduler runs): the running processes still say what they hold.
    const from = acting.length ? acting : processes;
    (settings as Record<SettingKey, unknown>)[key] = from[0]!.settings[key];
    const values = new Map<string, string[]>();
    for (const p of from) {
      const value = shown(p.settings[key]);
      values.set(value, [...(values.get(value) ?? []), `${p.role} pid ${p.pid}`]);
    }
    if (values.size > 1) {
      disagreements.push(`the processes disagree on the ${LABELS[key]}: ${[...values].map(([value, who]) => `${value} (${who.join(', ')})`).join(' vs ')}`);
    }
  }
  return { running: true, processes, settingsFrom: 'running', settings, disagreements };
}

/**
 * The rate the budget's usage is counted over. When processes disagree the longest window wins:
 * counting usage trims the shared record of requests to the window, and a shorter one would trim
 * entries a process with a longer window still counts.
 */
export function budgetRate(view: InstallationView): RateLimit | null {
  const rates = view.processes.length ? view.processes.filter((p) => actsOn('analyticsRate', p)) : [];
  const texts = rates.length ? rates.map((p) => p.settings.analyticsRate) : [view.settings.analyticsRate];
  const parsed = texts.map((t) => parseRate(t)).filter((r): r is RateLimit | null => r !== undefined);
  const limited = parsed.filter((r): r is RateLimit => r !== null);
  if (limited.length === 0) return null;
  return limited.reduce((a, b) => (b.windowMs > a.windowMs ? b : a));
}
