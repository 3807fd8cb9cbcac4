/**
 * Prompt benchmark: 1,000 prompts over 250 agent jobs (4 each, so each job's prompts run one after
 * another) against the emulator, agent run times drawn around 1 s (±50%). Two cases: follow-ups
 * to existing jobs, and chains that start their jobs by create (create + 3 follow-ups). Both are
 * measured in a process that already ran a batch, as a running `mintpipe start` has (each case
 * still opens new workers, which learn run times from scratch); that first batch (the follow-ups
 * case) is reported too. Run alone (`npm run bench -- prompts`) it is the process's first work of
 * any kind, none of its code optimized by V8 yet, and its first round of 250 checks and sends is
 * the slowest (1.17–1.20× the ideal, against 1.09–1.17× for the later cases); in a full
 * `npm run bench` the export benchmarks ran first, and only the prompt code is new to it
 * (1.16–1.19×).
 *
 * The ideal makespan is what the agents themselves need: the job whose runs took longest in all,
 * plus one round trip per prompt of it. Reports makespan / ideal, polls per prompt, and API calls
 * per prompt (checks, POSTs and polls).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/index.js';
import { Runtime } from '../src/cli/runtime.js';
import { isSeededArchived } from '../src/emulator/index.js';
import { createLogger } from '../src/logger.js';
import { runQuery } from '../src/warehouse/index.js';
import { batchStatus, submitBatch, waitForBatch, type PromptInput } from '../src/prompts/index.js';
import { QUEUE_NAMES } from '../src/queue/queue-names.js';
import { spawnEmulator } from './spawn-emulator.js';

const JOBS = 250;
const PER_JOB = 4;

interface BenchCase {
  name: string;
  inputs: PromptInput[];
  allowCreate: boolean;
}

export async function promptsBench(redisUrl: string, agentTimeMs = 1000, jitter = 0.5): Promise<string[]> {
  const project = 'bench';
  const jobs: string[] = [];
  for (let i = 1; jobs.length < JOBS; i++) if (!isSeededArchived(42, project, `job-${i}`)) jobs.push(`job-${i}`);
  const followUps: PromptInput[] = [];
  for (let round = 1; round <= PER_JOB; round++) {
    for (const jobId of jobs) followUps.push({ projectId: project, jobId, prompt: `Round ${round}: tighten the wording of the quickstart (${jobId})` });
  }
  const chains: PromptInput[] = [];
  for (let step = 1; step <= PER_JOB; step++) {
    for (let c = 1; c <= JOBS; c++) chains.push({ projectId: project, chain: `sdk-${c}`, prompt: `Step ${step}: update the quickstart of SDK ${c}` });
  }
  const lines = [
    '',
    `prompts: ${JOBS * PER_JOB} prompts over ${JOBS} agent jobs (${PER_JOB} each, in order), agent run times ${agentTimeMs} ms ±${jitter * 100}%`,
  ];
  for (const benchCase of [
    { name: "this process's first prompt batch (the follow-ups)", inputs: followUps, allowCreate: false },
    { name: 'follow-ups to existing jobs', inputs: followUps, allowCreate: false },
    { name: 'chains that create their jobs', inputs: chains, allowCreate: true },
  ] satisfies BenchCase[]) {
    lines.push(...(await runCase(redisUrl, agentTimeMs, jitter, benchCase)));
  }
  return lines;
}

async function runCase(redisUrl: string, agentTimeMs: number, jitter: number, benchCase: BenchCase): Promise<string[]> {
  // A fresh emulator per case: its counters and run log are this case's alone.
  const emulator = await spawnEmulator(0, agentTimeMs, jitter);
  const env = {
    REDIS_URL: redisUrl,
    MINTLIFY_API_URL: emulator.url,
    MINTLIFY_API_KEY: 'mint_bench',
    MINTPIPE_MESSAGE_RATE: 'off',
    MINTPIPE_POLL_INITIAL: '500ms',
    MINTPIPE_POLL_MAX: '5s',
    MINTPIPE_DATA_DIR: mkdtempSync(join(tmpdir(), 'mintpipe-bench-prompts-')),
    MINTPIPE_QUEUE_PREFIX: `benchp${Date.now()}`,
    // The bench's own Redis keeps nothing on disk (it is thrown away after the run).
    MINTPIPE_ALLOW_VOLATILE_REDIS: '1',
    LOG_LEVEL: 'warn',
  };
  const config = loadConfig(env);
  const runtime = await Runtime.open({ config, logger: createLogger({ level: 'warn', pretty: false }) });
  try {
    await runtime.startWorkers([QUEUE_NAMES.prompts]);
    const roundTripMs = await measureRoundTrip(runtime);
    const before = await emulator.stats();
    const cpuBefore = processCpu();
    const started = performance.now();
    const startedAt = Date.now();
    const batch = await submitBatch({ redis: runtime.redis, queue: runtime.queue(QUEUE_NAMES.prompts), prefix: config.queuePrefix }, benchCase.inputs, {
      force: true,
      allowCreate: benchCase.allowCreate,
    });
    // Done when the batch's counts say every prompt is final, as `prompts send --wait` sees it;
    // waitForBatch then reads every prompt back for its report (~35 ms), not the batch's time.
    let doneAt: number | undefined;
    await waitForBatch(runtime.redis, config.queuePrefix, batch.batchId, {
      intervalMs: 20,
      onProgress: (status) => {
        if (doneAt === undefined && status.done + status.held >= status.total) doneAt = performance.now();
      },
    });
    const makespanMs = (doneAt ?? performance.now()) - started;
    const cpu = processCpu();
    // One insert per write of the ledger (each stamps its rows with one recorded_at).
    const ledger = (await runQuery(await runtime.warehouse(), `SELECT uniqExact(recorded_at) AS inserts, count() AS rows FROM mintpipe.prompt_events WHERE batch_id = '${batch.batchId}'`)).rows[0]!;
    const endedAt = startedAt + makespanMs;
    const status = await batchStatus(runtime.redis, config.queuePrefix, batch.batchId, { prompts: true });
    const n = benchCase.inputs.length;
    const polls = (status.prompts ?? []).reduce((sum, p) => sum + p.polls, 0);
    const seen = await emulator.stats();
    const posts = seen.messageRequests + seen.createRequests;
    const calls = posts + seen.jobRequests - before.jobRequests;
    const idealMs = seen.longestChainAgentMs + seen.longestChainRuns * roundTripMs;
    const counts = Object.entries(status.byStatus).filter(([, k]) => k > 0).map(([s, k]) => `${s} ${k}`).join(', ');
    return [
      `  ${benchCase.name}:`,
      `    makespan                 ${(makespanMs / 1000).toFixed(2)} s   ideal ${(idealMs / 1000).toFixed(2)} s (longest job: ${seen.longestChainRuns} runs of ${(seen.longestChainAgentMs / 1000).toFixed(2)} s + a ${roundTripMs.toFixed(1)} ms round trip each)   → ${(makespanMs / idealMs).toFixed(2)}× the ideal`,
      `    longest job's waits      ${longestJobWaits(startedAt, endedAt, seen.longestChainRunTimes)}`,
      `    all jobs                 first send ${spread(seen.firstReceived.map((t) => t - startedAt))}; run end → next send ${spread(seen.gaps)}; last run end → batch done +${(endedAt - seen.lastEnded).toFixed(0)} ms`,
      `    polls per prompt         ${(polls / n).toFixed(2)}`,
      `    CPU (this process)       ${cpu && cpuBefore ? `${((cpu.all - cpuBefore.all) / 1000).toFixed(1)} s, of which main thread ${((cpu.main - cpuBefore.main) / 1000).toFixed(1)} s` : 'n/a'}; ledger ${String(ledger.inserts)} inserts of ${String(ledger.rows)} rows`,
      `    API calls per prompt     ${(calls / n).toFixed(2)}   (${seen.createRequests} creates, ${seen.messageRequests} messages, ${seen.jobRequests - before.jobRequests} job reads)`,
      `    outcomes                 ${counts}${status.held ? ` (${status.held} held)` : ''}; POSTs processed ${seen.creates + seen.messages}, duplicates ${seen.duplicates}, sent to an active job ${seen.sentWhileActive}`,
    ];
  } finally {
    await runtime.close();
    emulator.stop();
  }
}

/** CPU milliseconds of this process so far: all its threads (the engine's included), and the main thread. Linux only. */
function processCpu(): { all: number; main: number } | undefined {
  const ticks = (stat: string) => {
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, at 100 ticks per second
  };
  try {
    return { all: ticks(readFileSync('/proc/self/stat', 'utf8')), main: ticks(readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')) };
  } catch {
    return undefined;
  }
}

/** min / median / p90 / max of some milliseconds. */
function spread(ms: readonly number[]): string {
  if (ms.length === 0) return '-';
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0);
  return `min ${at(0)} p50 ${at(0.5)} p90 ${at(0.9)} max ${at(1)} ms`;
}

/**
 * Where the longest job lost time against the ideal: from the batch's start to its first send,
 * from each run's end to the next send, and from its last run's end to the batch's end (the same
 * machine's clock on both sides).
 */
function longestJobWaits(startedAt: number, endedAt: number, runs: readonly { receivedAt: number; endedAt: number }[]): string {
  if (runs.length === 0) return 'no runs';
  const gaps = runs.slice(1).map((run, i) => run.receivedAt - runs[i]!.endedAt);
  const first = runs[0]!.receivedAt - startedAt;
  const last = endedAt - runs[runs.length - 1]!.endedAt;
  const total = first + gaps.reduce((a, b) => a + b, 0) + last;
  return `${total.toFixed(0)} ms: first send +${first.toFixed(0)}, run end → next send ${gaps.map((g) => `+${g.toFixed(0)}`).join(' ')}, last end → batch done +${last.toFixed(0)}`;
}

/** Median time of one GET of an agent job through the client, as the workers make them. */
async function measureRoundTrip(runtime: Runtime): Promise<number> {
  const client = runtime.client();
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    const t = performance.now();
    await client.getAgentJob('bench-rtt', 'job-1');
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[10]!;
}
