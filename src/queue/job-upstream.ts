/**
 * The upstream a job was enqueued for. A shell that names one (MINTLIFY_API_URL or a key) records
 * it on the jobs it leaves in the queue, and a worker that sends elsewhere does not run them: left
 * for later, they would otherwise go to whatever the next worker is set up for — a demo start on
 * the built-in emulator would load synthetic rows as the user's project and mark its windows done.
 * The key is recorded by fingerprint (key-fingerprint.ts), never itself.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { MintpipeError } from '../errors.js';
import { installationSalt, keyFingerprint, shortFingerprint } from './key-fingerprint.js';

export interface JobUpstream {
  url: string;
  keyFingerprint: string | null;
  /** The built-in emulator of a start with no key: its URL and key change with every start. */
  builtInEmulator?: boolean;
}

export const jobUpstreamSchema = z.object({ url: z.string(), keyFingerprint: z.string().nullable(), builtInEmulator: z.boolean().optional() });

/** The upstream `api` sends to, as recorded on jobs and compared by workers. */
export async function jobUpstream(redis: Redis, queuePrefix: string, api: { url: string; key?: string }, builtInEmulator = false): Promise<JobUpstream> {
  const fingerprint = keyFingerprint(await installationSalt(redis, queuePrefix), api.key);
  return builtInEmulator ? { url: api.url, keyFingerprint: fingerprint, builtInEmulator } : { url: api.url, keyFingerprint: fingerprint };
}

function describe(upstream: JobUpstream): string {
  return upstream.builtInEmulator ? 'the built-in emulator' : `${upstream.url} (key ${shortFingerprint(upstream.keyFingerprint)})`;
}

/** A job enqueued for another upstream than this worker's: never retried, the job fails for good, saying both. */
export class UpstreamMismatchError extends MintpipeError {
  override name = 'UpstreamMismatchError';
  readonly retryable = false;
}

/**
 * Why this worker must not run a job recorded for `recorded` (undefined when it may: nothing was
 * recorded, or the same upstream). Two built-in emulators are the same: each start has its own.
 */
export function upstreamMismatch(recorded: JobUpstream | undefined, mine: JobUpstream): UpstreamMismatchError | undefined {
  if (recorded === undefined) return undefined;
  const same = recorded.builtInEmulator || mine.builtInEmulator
    ? recorded.builtInEmulator === true && mine.builtInEmulator === true
    : recorded.url === mine.url && recorded.keyFingerprint === mine.keyFingerprint;
  if (same) return undefined;
  return new UpstreamMismatchError(
    `enqueued for ${describe(recorded)}, and this worker sends to ${describe(mine)}: not run; enqueue it again from a shell with this worker's settings, or run it with a worker that has the settings it was enqueued with`,
  );
}
