/** The upstream a one-shot command's shell names, recorded on the work it leaves in the queue. */
import type { MintpipeConfig } from '../../config/index.js';
import type { JobUpstream } from '../queue/job-upstream.js';
import type { Runtime } from './runtime.js';

/**
 * Where this shell sends when it names an upstream (MINTLIFY_API_URL or a key): recorded on the
 * jobs it enqueues, so that no worker sending elsewhere runs them (src/queue/job-upstream.ts).
 * Undefined when it names none: the running installation's is meant, as for a hand-over.
 */
export async function shellUpstream(runtime: Runtime, env: Record<string, string | undefined> = process.env): Promise<JobUpstream | undefined> {
  return namesUpstream(runtime.config, env) ? runtime.upstream() : undefined;
}

/** Whether this shell names an upstream of its own: MINTLIFY_API_URL, or a key. */
export function namesUpstream(config: Pick<MintpipeConfig, 'api'>, env: Record<string, string | undefined> = process.env): boolean {
  return Boolean(env.MINTLIFY_API_URL?.trim()) || config.api.key !== undefined;
}
