/**
 * Prompt benchmark: 1,000 prompts over 250 agent jobs (4 each, so each job's prompts run one after
 * another) against the emulator with ~1 s of agent time. Reports the makespan against the ideal
 * (4 × agent time plus one polling interval), polls per prompt, and API calls per prompt.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/index.js';
import { Runtime } from '../src/cli/runtime.js';
import { isSeededArchived } from '../src/emulator/index.js';
import { createLogger } from '../src/logger.js';
import { batchStatus, submitBatch, waitForBatch, type PromptInput } from '../src/prompts/index.js';
import { QUEUE_NAMES } from '../src/queue/queue-names.js';
import { spawnEmulator } from './spawn-emulator.js';

export async function promptsBench(redisUrl: string, agentTimeMs = 1000): Promise<string[]> {
  const emulator = await spawnEmulator(0, agentTimeMs);
  const pollInitial = '500ms';
  const env = {
    REDIS_URL: redisUrl,
    MINTLIFY_API_URL: emulator.url,
    MINTLIFY_API_KEY: 'mint_bench',
    MINTPIPE_MESSAGE_RATE: 'off',
    MINTPIPE_POLL_INITIAL: pollInitial,
    MINTPIPE_POLL_MAX: '5s',
    MINTPIPE_DATA_DIR: mkdtempSync(join(tmpdir(), 'mintpipe-bench-prompts-')),
    MINTPIPE_QUEUE_PREFIX: `benchp${Date.now()}`,
    LOG_LEVEL: 'warn',
  };
  const config = loadConfig(env);
  const runtime = await Runtime.open({ config, logger: createLogger({ level: 'warn', pretty: false }) });
  try {
    await runtime.startWorkers([QUEUE_NAMES.prompts]);
    const jobs: string[] = [];
    for (let i = 1; jobs.length < 250; i++) if (!isSeededArchived(42, 'bench', `job-${i}`)) jobs.push(`job-${i}`);
    const inputs: PromptInput[] = [];
    for (let round = 1; round <= 4; round++) for (const jobId of jobs) inputs.push({ projectId: 'bench', jobId, prompt: `Round ${round}: tighten the wording of the quickstart (${jobId})` });

    const started = performance.now();
    const batch = await submitBatch({ redis: runtime.redis, queue: runtime.queue(QUEUE_NAMES.prompts), prefix: config.queuePrefix }, inputs, { force: true });
    await waitForBatch(runtime.redis, config.queuePrefix, batch.batchId, { intervalMs: 100 });
    const makespanMs = performance.now() - started;
    const status = await batchStatus(runtime.redis, config.queuePrefix, batch.batchId, { prompts: true });
    const polls = (status.prompts ?? []).reduce((sum, p) => sum + p.polls, 0);
    const seen = await emulator.stats();
    const calls = seen.messageRequests + seen.jobRequests;
    const idealMs = 4 * agentTimeMs + config.prompts.pollInitialMs;
    const counts = Object.entries(status.byStatus).filter(([, n]) => n > 0).map(([s, n]) => `${s} ${n}`).join(', ');
    return [
      '',
      `prompts: ${inputs.length} prompts over ${jobs.length} agent jobs (4 each), agent time ${agentTimeMs} ms, first poll after ${pollInitial}, worker concurrency ${config.prompts.concurrency}`,
      `  makespan                 ${(makespanMs / 1000).toFixed(2)} s   ideal ${(idealMs / 1000).toFixed(2)} s (4 × agent time + polling interval)   → ${(makespanMs / idealMs).toFixed(2)}× the ideal`,
      `  polls per prompt         ${(polls / inputs.length).toFixed(2)}`,
      `  API calls per prompt     ${(calls / inputs.length).toFixed(2)}   (${seen.messageRequests} messages, ${seen.jobRequests} job reads)`,
      `  outcomes                 ${counts}; messages received ${seen.messages}, duplicates ${seen.duplicates}, sent to an active job ${seen.sentWhileActive}`,
    ];
  } finally {
    await runtime.close();
    emulator.stop();
  }
}
