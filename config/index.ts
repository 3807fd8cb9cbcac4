/**
 * Settings: environment + defaults, parsed once at start into a resolved, typed object that is
 * passed down. Every refusal names the key and what was expected (a `ConfigError`, exit code 2).
 * Secrets come only from the environment.
 */
import { misspelledSetting } from './misspelled-setting.js';
import { projectIdProblem } from './project-id.js';
import { ConfigError } from './config-error.js';
import { datasetSettings, type DatasetSettings } from './datasets.js';
import { parseDashboardHosts } from './dashboard-hosts.js';
import { MAX_TIMER_MS, parseDurationMs, parseRate, type RateLimit } from './durations.js';
import { dataDirOf } from './data-dir.js';
import { checkNightlyCron, checkTimeZone, DEFAULT_NIGHTLY_CRON } from './nightly-cron.js';
import { triageSettings, type TriageSettings } from './triage.js';
import { parseRedisUrl } from './redis-url.js';

export { ConfigError } from './config-error.js';
export { formatRate, MAX_TIMER_MS, parseDurationMs, parseRate, type RateLimit } from './durations.js';

/** Shortest accepted dashboard token: a guessable one guards nothing. */
export const MIN_DASHBOARD_TOKEN_CHARS = 16;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export interface MintpipeConfig {
  api: {
    /** Upstream base URL. @default https://api.mintlify.com */
    url: string;
    /** Admin key (`mint_…`); undefined means "no key": `start` then runs against the emulator. */
    key: string | undefined;
    /** Per-request timeout. @default 30000 */
    timeoutMs: number;
    /** Attempts per GET, first included. @default 6 */
    retryAttempts: number;
    /** Ceiling on the time one call spends retrying. @default 300000 */
    retryMaxTotalMs: number;
  };
  redis: {
    /** `REDIS_URL`: one server, or a cluster as `redis+cluster://host1:7000,host2:7001`. @default undefined: a private redis-server */
    url: string | undefined;
    /** Run the prompts queue on a Redis without AOF or with eviction (`MINTPIPE_ALLOW_VOLATILE_REDIS`). @default false */
    allowVolatile: boolean;
  };
  clickhouse: { url: string | undefined; user: string; password: string; database: string };
  gateway: {
    /** Read-only queries the warehouse gateway runs at once, 1–64; more are refused with 429 (`MINTPIPE_GATEWAY_CONCURRENCY`). @default 2 */
    concurrency: number;
  };
  dataDir: string;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Budget of analytics requests for the whole organization; null = off. @default 100/1h */
  analyticsRate: RateLimit | null;
  /** Budget of messages per project; null = off. @default 100/1h */
  messageRate: RateLimit | null;
  /** BullMQ key prefix; lets several installations share one Redis. @default mintpipe */
  queuePrefix: string;
  worker: {
    /** How long a job's lock lasts without renewal; a dead worker's job is retried after it. @default 30000 */
    lockDurationMs: number;
    /** How often workers look for stalled jobs of dead workers. @default 15000 */
    stalledIntervalMs: number;
    /**
     * How long `--wait` follows work handed to running workers while no worker serves its queue,
     * before it exits 1 naming what is left (`MINTPIPE_FOLLOW_GRACE`). @default 30000
     */
    followGraceMs: number;
  };
  export: {
    /** Projects exported by the nightly schedule. @default [] */
    projects: string[];
    /** Cron pattern of the nightly run. @default 0 2 * * * */
    cron: string;
    /** Time zone of the cron pattern. @default UTC */
    timezone: string;
    /** Datasets of the nightly plan, in priority order (`MINTPIPE_DATASETS`). @default visitors, views, feedback, assistant, searches, feedback-by-page, assistant-caller-stats */
    datasets: DatasetSettings['datasets'];
    /** Projects whose assistant threads are fetched (`MINTPIPE_ASSISTANT_THREADS`). @default [] */
    assistantThreads: string[];
    /** Days before yesterday re-exported each night for late data, per dataset (`MINTPIPE_REEXPORT_DAYS=3,feedback=30`). @default { default: 3 } */
    reexportDays: DatasetSettings['reexportDays'];
    /** Personal fields (feedback `contact`): keep, hash or drop (`MINTPIPE_PII`). @default keep */
    pii: DatasetSettings['pii'];
    /** Largest upstream response body (`MINTPIPE_MAX_BODY`, bytes). @default 67108864 */
    maxBodyBytes: number;
    /** Also export last week's window on Mondays. @default false */
    weekly: boolean;
    /** Also export last month's window on the 1st. @default false */
    monthly: boolean;
    /** Window jobs run at once per worker. @default 4 */
    concurrency: number;
    /** Pages fetched ahead concurrently when the budget is off. @default 16 */
    prefetchPages: number;
    /** Rows per warehouse insert. @default 5000 */
    batchRows: number;
    /** A window with more pages than this fails (a pagination loop guard). @default 20000 */
    maxPages: number;
    /** Re-fetches from the start of a window whose data moved during the run. @default 2 */
    unstableRetries: number;
    /**
     * How old a `running` run's last event must be before a start, worker or export that finds no
     * live job for it marks it `abandoned` (`MINTPIPE_REAP_AFTER`). @default 60000
     */
    reapAfterMs: number;
  };
  prompts: {
    /** Prompt steps run at once per worker process, 1–1024 (each is a short send or poll; waiting prompts hold none). @default 256 */
    concurrency: number;
    /** First poll delay after a send. @default 2000 */
    pollInitialMs: number;
    /** Poll delay ceiling (the delay doubles up to it). @default 60000 */
    pollMaxMs: number;
    /**
     * Without a sign that the agent job picked a message up (seen active, a new status or PR
     * link), how long after the send its unchanged outcome may be taken as the prompt's; less than
     * the deadline. @default 10000 (or half the deadline when that is shorter)
     */
    pollSettleMs: number;
    /** Time after the send at which a still-active agent job ends the prompt as timed_out. @default 7200000 */
    deadlineMs: number;
    /** Largest accepted prompt, in bytes of UTF-8. @default 32768 */
    maxPromptBytes: number;
    /** How long a finished batch's records stay in Redis (outcomes stay in the warehouse). @default 2592000000 (30 days) */
    retentionMs: number;
    /**
     * Whether agent job creates spend the per-project message budget (`shared`: the spec does not
     * say whether they share one, so the safe reading) or a budget of their own of the same rate
     * (`separate`). `MINTPIPE_CREATE_BUDGET`. @default 'shared'
     */
    createBudget: 'shared' | 'separate';
  };
  /** Triage recipes: the nightly ones, their cap, the user's directory (config/triage.ts). */
  triage: TriageSettings;
  dashboard: {
    /** Interface the dashboard listens on. @default 127.0.0.1 */
    host: string;
    /** @default 3000 */
    port: number;
    /** The user's token (at least 16 characters): allows a non-loopback host and writes. @default undefined (the data dir's generated token guards every request but /healthz; loopback only, read-only) */
    token: string | undefined;
    /** Host header names served besides localhost, 127.0.0.1, [::1] and `host` (`MINTPIPE_DASHBOARD_HOSTS`). @default [] */
    hosts: string[];
  };
  /** Port of `worker`'s own /metrics and /healthz (on the dashboard host, with its token); undefined = none. @default undefined */
  metricsPort: number | undefined;
  /** Time a stopping process gives in-flight jobs before it exits. @default 30000 */
  shutdownGraceMs: number;
}

type Env = Record<string, string | undefined>;

function text(env: Env, key: string, fallback: string): string {
  const value = env[key];
  return value === undefined || value.trim() === '' ? fallback : value.trim();
}

function integer(env: Env, key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[key];
  if (raw === undefined || raw.trim() === '') return fallback;
  // Digits only (no 1e3, 0x10 or 12.0), then the range: Number() of a digit string is exact up to 2^53.
  const value = /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new ConfigError(key, `expected an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** A duration that is compared with clocks or stored in Redis, never handed to a Node timer. */
function duration(env: Env, key: string, fallbackMs: number): number {
  const raw = env[key];
  if (raw === undefined || raw.trim() === '') return fallbackMs;
  const ms = parseDurationMs(raw);
  if (ms === undefined) throw new ConfigError(key, `expected a duration like 500ms, 5s, 2m or 1h, got "${raw}"`);
  return ms;
}

/**
 * A duration that ends up in `setTimeout` (directly or through BullMQ), so it must fit a Node
 * timer: more would fire after 1 ms instead. `maxMs` is lower where the code adds to it.
 */
function timerDuration(env: Env, key: string, fallbackMs: number, maxMs = MAX_TIMER_MS): number {
  const ms = duration(env, key, fallbackMs);
  if (ms > maxMs) {
    throw new ConfigError(key, `expected a duration of at most ${maxMs}ms (about ${Math.floor(maxMs / 8_640_000) / 10}d, the longest Node timer), got "${env[key]}"`);
  }
  return ms;
}

function dashboardToken(env: Env): string | undefined {
  const token = env.MINTPIPE_DASHBOARD_TOKEN?.trim() || undefined;
  // The message never repeats the value, nor its length: it is a secret even when too short.
  if (token !== undefined && [...token].length < MIN_DASHBOARD_TOKEN_CHARS) {
    throw new ConfigError('MINTPIPE_DASHBOARD_TOKEN', `expected at least ${MIN_DASHBOARD_TOKEN_CHARS} characters (a long random string, e.g. from openssl rand -hex 24)`);
  }
  return token;
}

function flag(env: Env, key: string, fallback: boolean): boolean {
  const raw = env[key]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(key, `expected true or false, got "${env[key]}"`);
}

function oneOf<T extends string>(env: Env, key: string, fallback: T, allowed: readonly T[]): T {
  const raw = text(env, key, fallback).toLowerCase();
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(key, `expected ${allowed.join(' or ')}, got "${env[key]}"`);
  return raw as T;
}

function rate(env: Env, key: string, fallback: string): RateLimit | null {
  const raw = text(env, key, fallback);
  const parsed = parseRate(raw);
  if (parsed === undefined) throw new ConfigError(key, `expected N/DURATION (like 100/1h or 20/5s) or off, got "${raw}"`);
  return parsed;
}

function apiUrl(env: Env): string {
  const raw = text(env, 'MINTLIFY_API_URL', 'https://api.mintlify.com');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('MINTLIFY_API_URL', `not a URL: "${withoutUserInfo(raw)}"`);
  }
  // The key goes in a header; a password in the URL would ride along in every log line and error.
  if (url.username || url.password) {
    throw new ConfigError('MINTLIFY_API_URL', 'must not hold credentials (user:password@); the API key goes in MINTLIFY_API_KEY');
  }
  const local = LOCAL_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
    throw new ConfigError('MINTLIFY_API_URL', `must be https (plain http only for localhost or 127.0.0.1), got "${url.origin}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** A URL's text with anything between `//` and `@` hidden, for a message about a URL that did not parse. */
function withoutUserInfo(raw: string): string {
  return raw.replace(/\/\/[^/?#]*@/, '//…@');
}

function apiKey(env: Env): string | undefined {
  const raw = env.MINTLIFY_API_KEY?.trim();
  if (!raw) return undefined;
  // The message never repeats the value: it is a secret even when malformed.
  if (!raw.startsWith('mint_')) throw new ConfigError('MINTLIFY_API_KEY', 'must be a Mintlify admin key starting with "mint_"');
  if (raw === 'mint_') throw new ConfigError('MINTLIFY_API_KEY', 'nothing follows "mint_": the key was cut short; copy it again');
  const stray = /[^A-Za-z0-9_-]/.exec(raw)?.[0];
  if (stray !== undefined) {
    const named = STRAY_KEY_CHARACTERS[stray] ?? (/[\r\n]/.test(stray) ? 'a line break' : undefined);
    throw new ConfigError('MINTLIFY_API_KEY', `holds a character no Mintlify key has${named ? ` (${named})` : ''} after "mint_"; copy the key again`);
  }
  return raw;
}

/** Characters a pasted key picks up, named (any other is only counted as one no key has). */
const STRAY_KEY_CHARACTERS: Record<string, string> = { ' ': 'a space', '"': 'a quote', "'": 'a quote', '\t': 'a tab' };

function optionalUrl(env: Env, key: string, protocols: string[]): string | undefined {
  const raw = env[key]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(key, 'not a URL');
  }
  if (!protocols.includes(url.protocol)) throw new ConfigError(key, `expected ${protocols.join(' or ')} URL, got ${url.protocol}`);
  return raw;
}

function redisUrl(env: Env): string | undefined {
  const raw = env.REDIS_URL?.trim();
  if (!raw) return undefined;
  const target = parseRedisUrl(raw);
  if ('problem' in target) throw new ConfigError('REDIS_URL', target.problem);
  return raw;
}

export interface LoadConfigOptions {
  /**
   * False for commands that never call the API (query, status, plan, dashboard): MINTLIFY_API_KEY
   * is then not read at all, so an unset or malformed key does not stop them (`api.key` is undefined).
   * @default true
   */
  usesApi?: boolean;
}

/** Parses the environment into resolved settings; throws `ConfigError` naming the first bad key. */
export function loadConfig(env: Env = process.env, options: LoadConfigOptions = {}): MintpipeConfig {
  const typo = misspelledSetting(env);
  if (typo) throw new ConfigError(typo.key, `no such setting (did you mean ${typo.meant}?); its value would be ignored`);
  const logLevel = text(env, 'LOG_LEVEL', 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const projects = text(env, 'MINTPIPE_PROJECTS', '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const project of projects) {
    const problem = projectIdProblem(project);
    if (problem !== null) throw new ConfigError('MINTPIPE_PROJECTS', problem);
  }
  const database = text(env, 'CLICKHOUSE_DATABASE', 'mintpipe');
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new ConfigError('CLICKHOUSE_DATABASE', `not a database name: "${database}"`);
  const queuePrefix = text(env, 'MINTPIPE_QUEUE_PREFIX', 'mintpipe');
  if (!/^[A-Za-z0-9_.-]+$/.test(queuePrefix)) throw new ConfigError('MINTPIPE_QUEUE_PREFIX', `letters, digits, _ . - only, got "${queuePrefix}"`);
  const polls = pollSettings(env);
  const timezone = checkTimeZone(text(env, 'MINTPIPE_SCHEDULE_TZ', 'UTC'));

  return {
    api: {
      url: apiUrl(env),
      key: options.usesApi === false ? undefined : apiKey(env),
      // The per-request timer.
      timeoutMs: timerDuration(env, 'MINTPIPE_HTTP_TIMEOUT', 30_000),
      retryAttempts: integer(env, 'MINTPIPE_RETRY_ATTEMPTS', 6, 1, 100),
      // Bounds the sleep before a retry (a server's Retry-After may ask for up to all of it).
      retryMaxTotalMs: timerDuration(env, 'MINTPIPE_RETRY_MAX_TIME', 300_000),
    },
    redis: { url: redisUrl(env), allowVolatile: flag(env, 'MINTPIPE_ALLOW_VOLATILE_REDIS', false) },
    clickhouse: {
      url: optionalUrl(env, 'CLICKHOUSE_URL', ['http:', 'https:']),
      user: text(env, 'CLICKHOUSE_USER', 'default'),
      password: env.CLICKHOUSE_PASSWORD ?? '',
      database,
    },
    gateway: { concurrency: integer(env, 'MINTPIPE_GATEWAY_CONCURRENCY', 2, 1, 64) },
    dataDir: dataDirOf(env),
    logLevel: logLevel as MintpipeConfig['logLevel'],
    analyticsRate: rate(env, 'MINTPIPE_ANALYTICS_RATE', '100/1h'),
    messageRate: rate(env, 'MINTPIPE_MESSAGE_RATE', '100/1h'),
    queuePrefix,
    worker: {
      // BullMQ renews locks and looks for stalled jobs on timers of these lengths.
      lockDurationMs: timerDuration(env, 'MINTPIPE_LOCK_DURATION', 30_000),
      stalledIntervalMs: timerDuration(env, 'MINTPIPE_STALLED_INTERVAL', 15_000),
      followGraceMs: timerDuration(env, 'MINTPIPE_FOLLOW_GRACE', 30_000),
    },
    export: {
      projects,
      cron: checkNightlyCron(text(env, 'MINTPIPE_SCHEDULE_CRON', DEFAULT_NIGHTLY_CRON), timezone),
      timezone,
      ...datasetSettings(env),
      maxBodyBytes: integer(env, 'MINTPIPE_MAX_BODY', 64 * 1024 * 1024, 1024, 2 ** 31 - 1),
      weekly: flag(env, 'MINTPIPE_SCHEDULE_WEEKLY', false),
      monthly: flag(env, 'MINTPIPE_SCHEDULE_MONTHLY', false),
      concurrency: integer(env, 'MINTPIPE_EXPORT_CONCURRENCY', 4, 1, 64),
      prefetchPages: integer(env, 'MINTPIPE_PREFETCH_PAGES', 16, 1, 64),
      batchRows: integer(env, 'MINTPIPE_BATCH_ROWS', 5000, 250, 1_000_000),
      maxPages: integer(env, 'MINTPIPE_MAX_PAGES', 20_000, 1),
      unstableRetries: integer(env, 'MINTPIPE_UNSTABLE_RETRIES', 2, 0, 10),
      reapAfterMs: timerDuration(env, 'MINTPIPE_REAP_AFTER', 60_000),
    },
    prompts: {
      concurrency: integer(env, 'MINTPIPE_PROMPT_CONCURRENCY', 256, 1, 1024),
      // Poll delays become delayed jobs (a timestamp in Redis) and the deadline is compared with the
      // clock: no Node timer holds them, so they may exceed one.
      ...polls,
      maxPromptBytes: integer(env, 'MINTPIPE_PROMPT_MAX_BYTES', 32_768, 1, 10_000_000),
      // A Redis expiry, not a timer: 30d and more are fine.
      retentionMs: duration(env, 'MINTPIPE_PROMPT_RETENTION', 30 * 86_400_000),
      createBudget: oneOf(env, 'MINTPIPE_CREATE_BUDGET', 'shared', ['shared', 'separate'] as const),
    },
    triage: triageSettings(env),
    dashboard: {
      host: text(env, 'MINTPIPE_DASHBOARD_HOST', '127.0.0.1'),
      port: integer(env, 'MINTPIPE_DASHBOARD_PORT', 3000, 0, 65_535),
      token: dashboardToken(env),
      hosts: parseDashboardHosts(env.MINTPIPE_DASHBOARD_HOSTS),
    },
    metricsPort: env.MINTPIPE_METRICS_PORT?.trim() ? integer(env, 'MINTPIPE_METRICS_PORT', 0, 0, 65_535) : undefined,
    // The hard stop of a stopping process is a timer of the grace plus 0.9 s (src/cli/run-until-signal.ts).
    shutdownGraceMs: timerDuration(env, 'MINTPIPE_SHUTDOWN_GRACE', 30_000, MAX_TIMER_MS - 10_000),
  };
}

/** A prompt's poll times and deadline, checked against each other. */
function pollSettings(env: Env): Pick<MintpipeConfig['prompts'], 'pollInitialMs' | 'pollMaxMs' | 'pollSettleMs' | 'deadlineMs'> {
  const pollInitialMs = duration(env, 'MINTPIPE_POLL_INITIAL', 2000);
  const pollMaxMs = duration(env, 'MINTPIPE_POLL_MAX', 60_000);
  if (pollMaxMs < pollInitialMs) throw new ConfigError('MINTPIPE_POLL_MAX', 'must not be less than MINTPIPE_POLL_INITIAL');
  const deadlineMs = duration(env, 'MINTPIPE_PROMPT_DEADLINE', 7_200_000);
  // Unset: 60 s, or half the deadline when that is shorter. A server may pick a message up late:
  // settling sooner takes the job's state from before it for the prompt's, and sends the next early.
  const pollSettleMs = duration(env, 'MINTPIPE_POLL_SETTLE', Math.min(60_000, Math.max(1, Math.floor(deadlineMs / 2))));
  // Past the deadline a prompt ends timed_out: a settle time as long would never settle anything.
  if (pollSettleMs >= deadlineMs) throw new ConfigError('MINTPIPE_POLL_SETTLE', 'must be less than MINTPIPE_PROMPT_DEADLINE');
  return { pollInitialMs, pollMaxMs, pollSettleMs, deadlineMs };
}
