/** Where a prompts subcommand's batch is worked: the running workers' upstream. */
import { QUEUE_NAMES } from '../queue/queue-names.js';
import type { Runtime } from './runtime.js';

/** Prompts go where the running workers send them: refuse when that is not this shell's upstream. */
export async function checkPromptsHandOver(runtime: Runtime): Promise<void> {
  const { checkUpstreamHandOver } = await import('./hand-over-check.js');
  await checkUpstreamHandOver(runtime.redis, runtime.config, QUEUE_NAMES.prompts);
}
