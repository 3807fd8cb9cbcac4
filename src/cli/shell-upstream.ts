/** The upstream a one-shot command's shell names, recorded on the work it leaves in the queue. */
import type { JobUpstream } from '../queue/job-upstream.js';
import type { Runtime } from './runtime.js';

/**
 * Where this shell sends when it names an upstream (MINTLIFY_API_URL or a key): recorded on the
 * jobs it enqueues, so that no worker sending elsewhere runs them (src/queue/job-upstream.ts).
 * Undefined when it names none: the running installation's is meant, as for a hand-over.
 */
export async function shellUpstream(runtime: Runtime, env: Record<string, string | undefined> = process.env): Promise<JobUpstream | undefined> {
  const namesUpstream = Boolean(env.MINTLIFY_API_URL?.trim()) || runtime.config.api.key !== undefined;
  return namesUpstream ? runtime.upstream() : undefined;
}
