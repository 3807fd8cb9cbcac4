/** Where a prompts subcommand's batch is worked: the running workers' upstream, or none yet. */
import { QUEUE_NAMES } from '../queue/queue-names.js';
import type { Runtime } from './runtime.js';

/** Prompts go where the running workers send them: refuse when that is not this shell's upstream. */
export async function checkPromptsHandOver(runtime: Runtime): Promise<void> {
  const { checkUpstreamHandOver } = await import('./hand-over-check.js');
  await checkUpstreamHandOver(runtime.redis, runtime.config, QUEUE_NAMES.prompts);
}

/**
 * Submitting needs only Redis, so a batch can wait there for workers: says so (on stderr) when
 * none is connected, and nothing when Redis will not tell.
 */
export async function hintWithoutWorkers(runtime: Runtime, what = 'the batch runs', orWait = true): Promise<void> {
  if ((await runtime.workersConnected(QUEUE_NAMES.prompts)) !== false) return;
  process.stderr.write(`no worker serves the prompts queue yet: ${what} once \`mintpipe start\` or \`mintpipe worker\` runs (with its MINTLIFY_API_KEY)${orWait ? ', or pass --wait' : ''}\n`);
}
