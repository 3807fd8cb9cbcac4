/**
 * `mintpipe emulator`: the local Mintlify API (the eight analytics operations, agent messages, agent
 * jobs) with synthetic data, optional rate limits, latency, faults and the analytics knobs a client
 * must cope with (shuffled rows, approximate counts, extra fields, broken text, short pages,
 * expiring cursors) — until Ctrl-C.
 */
import type { Command } from 'commander';
import { formatRate, parseDurationMs, parseRate, type RateLimit } from '../../../config/durations.js';
import type { StartEmulatorOptions } from '../../emulator/index.js';
import { MintpipeError, UsageError } from '../../errors.js';

export interface EmulatorFlags {
  port: string;
  host: string;
  seed: string;
  latency: string;
  faultRate: string;
  analyticsRate: string;
  messageRate: string;
  agentTime: string;
  /** Absent = 0 (a message's run starts at once). */
  pickupDelay?: string;
  jobsPerProject: string;
  /** The analytics knobs; absent = off. */
  shuffle?: boolean;
  approximateCounts?: string;
  extraFields?: boolean;
  invalidText?: string;
  maxPageRows?: string;
  cursorTtl?: string;
}

/** How `--fault-rate` is spread over the fault kinds a client must survive. */
const FAULT_SPREAD = { serverErrorRate: 0.5, rateLimitRate: 0.25, resetRate: 0.25 };

export function register(program: Command): void {
  program
    .command('emulator')
    .description('run the local Mintlify API emulator (synthetic analytics and agent jobs) until Ctrl-C')
    .option('--port <port>', 'TCP port (0 = any free port)', '4010')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--seed <n>', 'seed of the synthetic data', '42')
    .option('--latency <ms>', 'added to every response (ms, or 250ms, 1s)', '0')
    .option('--fault-rate <0..1>', 'share of requests that fail (5xx, 429 or reset)', '0')
    .option('--analytics-rate <N/DUR|off>', 'organization analytics budget, e.g. 100/1h (production)', 'off')
    .option('--message-rate <N/DUR|off>', 'message budget per project, e.g. 100/1h', 'off')
    .option('--agent-time <duration>', 'how long an agent job stays active after a message', '1s')
    .option('--pickup-delay <duration>', "how long after a message its run starts (until then the job shows its previous state: processed asynchronously)", '0')
    .option('--jobs-per-project <n>', 'seeded agent jobs job-1 … job-N in every project', '500')
    .option('--shuffle', 'analytics rows in a seeded order per window (where the spec promises an order: ties only)')
    .option('--approximate-counts <0..1>', 'share of count rows served approximate (total out of bounds, or 12.5)', '0')
    .option('--extra-fields', 'fields beyond the schema: conversationId on assistant rows, _sampleRate elsewhere')
    .option('--invalid-text <0..1>', 'share of text items with a lone UTF-16 surrogate', '0')
    .option('--max-page-rows <n|off>', 'page size cap of visitors and views (short pages with hasMore)', 'off')
    .option('--cursor-ttl <duration|off>', 'age after which a pagination cursor is refused (400)', 'off')
    .action(async (flags: EmulatorFlags) => {
      const options = emulatorOptionsFromFlags(flags);
      await runUntilSignal(options);
    });
}

/** Turns the flags into emulator options; a bad value throws a UsageError naming the flag. */
export function emulatorOptionsFromFlags(flags: EmulatorFlags): StartEmulatorOptions & { port: number; host: string } {
  const faultRate = numberIn('--fault-rate', flags.faultRate, 0, 1);
  return {
    port: integerIn('--port', flags.port, 0, 65_535),
    host: nonEmpty('--host', flags.host),
    seed: integerIn('--seed', flags.seed, 0, 2 ** 32 - 1),
    latencyMs: durationOrZero('--latency', flags.latency),
    faults: {
      serverErrorRate: faultRate * FAULT_SPREAD.serverErrorRate,
      rateLimitRate: faultRate * FAULT_SPREAD.rateLimitRate,
      resetRate: faultRate * FAULT_SPREAD.resetRate,
    },
    analyticsRate: rate('--analytics-rate', flags.analyticsRate),
    messageRate: rate('--message-rate', flags.messageRate),
    agentTimeMs: durationOrZero('--agent-time', flags.agentTime),
    pickupDelayMs: durationOrZero('--pickup-delay', flags.pickupDelay ?? '0'),
    jobsPerProject: integerIn('--jobs-per-project', flags.jobsPerProject, 1, 1_000_000),
    shuffle: flags.shuffle ?? false,
    approximateCounts: numberIn('--approximate-counts', flags.approximateCounts ?? '0', 0, 1),
    extraFields: flags.extraFields ?? false,
    invalidText: numberIn('--invalid-text', flags.invalidText ?? '0', 0, 1),
    maxPageRows: offOr(flags.maxPageRows, (text) => integerIn('--max-page-rows', text, 1, 1_000_000)),
    cursorTtlMs: offOr(flags.cursorTtl, (text) => durationOrZero('--cursor-ttl', text)),
  };
}

async function runUntilSignal(options: StartEmulatorOptions & { port: number; host: string }): Promise<void> {
  // Loaded here, not at the top: `--help` and usage errors load only commander.
  const [{ startEmulator, EMULATOR_DATASETS }, { nextStopSignal }] = await Promise.all([import('../../emulator/index.js'), import('../stop-signals.js')]);
  // Listening before anything is printed: a signal right after "Ctrl-C stops it." is a clean stop.
  const stopped = nextStopSignal();
  let emulator;
  try {
    emulator = await startEmulator(options);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new MintpipeError(`--port ${options.port}: address already in use (try --port 0 for a free one)`, { cause: err });
    }
    const { hostProblem } = await import('../../ops/listen-port.js');
    const ofHost = hostProblem(code);
    if (ofHost !== undefined) throw new UsageError(`--host ${options.host} ${ofHost}; give one of this machine's addresses, such as 127.0.0.1`, { cause: err });
    throw err;
  }
  const out = process.stdout;
  out.write(
    `mintpipe emulator listening on ${emulator.url} (seed ${options.seed}, analytics rate ${formatRate(options.analyticsRate ?? null)}, ` +
      `message rate ${formatRate(options.messageRate ?? null)}, latency ${options.latencyMs}ms, agent time ${options.agentTimeMs}ms` +
      `${options.pickupDelayMs ? `, pickup delay ${options.pickupDelayMs}ms` : ''})\n`,
  );
  out.write(
    `try: curl -H "Authorization: Bearer mint_demo" "${emulator.url}/v1/analytics/demo/visitors?dateFrom=2026-01-01&dateTo=2026-01-08&limit=5"\n` +
      `     (one path per dataset: ${Object.values(EMULATOR_DATASETS).map((fixture) => fixture.path.replace(/:(\w+)/g, '<$1>')).join(', ')})\n`,
  );
  out.write('Ctrl-C stops it.\n');
  await stopped;
  await emulator.close();
  out.write('mintpipe emulator stopped\n');
}

function integerIn(flag: string, text: string, min: number, max: number): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag}: expected an integer from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

function numberIn(flag: string, text: string, min: number, max: number): number {
  const value = text.trim() === '' ? NaN : Number(text);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new UsageError(`${flag}: expected a number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

function durationOrZero(flag: string, text: string): number {
  if (/^0+(\.0+)?\s*(ms|s|m|h|d)?$/.test(text.trim())) return 0;
  const ms = parseDurationMs(text);
  if (ms === undefined) throw new UsageError(`${flag}: expected a duration like 250, 250ms, 2s or 1m, got "${text}"`);
  return ms;
}

/** null for an absent or `off` value, else the parsed one. */
function offOr<T>(text: string | undefined, parse: (text: string) => T): T | null {
  return text === undefined || text.trim() === 'off' ? null : parse(text);
}

function rate(flag: string, text: string): RateLimit | null {
  const value = parseRate(text);
  if (value === undefined) throw new UsageError(`${flag}: expected N/DURATION (e.g. 100/1h) or off, got "${text}"`);
  return value;
}

function nonEmpty(flag: string, text: string): string {
  if (text.trim() === '') throw new UsageError(`${flag}: must not be empty`);
  return text.trim();
}
