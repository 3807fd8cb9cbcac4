/**
 * The data of a prompts-queue job, checked before the processor does anything. Whoever can write
 * to Redis (a script, an older mintpipe, Bull Board with a token) can add a job; one whose data
 * is not what a step expects must fail alone, for good, with a reason naming the field, before it
 * reads or records anything. The schemas are held to the job data types at compile time.
 */
import { jobUpstreamSchema } from '../queue/job-upstream.js';
import { z } from 'zod';
import { MintpipeError } from '../errors.js';
import { isBatchId } from './batch-id-format.js';
import { BATCH_JOB, PROMPT_JOB, type BatchJobData, type PromptJobData } from './prompt-jobs.js';

const batchId = z.string().refine(isBatchId, 'expected a batch id (16 hex digits)');
/** As promptIdFor makes them. */
const promptId = z.string().regex(/^[0-9a-f]{20}$/, 'expected a prompt id (20 hex digits)');

export const promptJobDataSchema = z.strictObject({
  batchId,
  promptId,
  attempt: z.number().int().min(0).max(1_000_000),
});

export const batchJobDataSchema = z.strictObject({ batchId, recover: z.literal(true).optional(), upstream: jobUpstreamSchema.optional() });

// A field added to a job data type without its check here fails to compile (and vice versa).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const promptSchemaMatches: Same<z.infer<typeof promptJobDataSchema>, PromptJobData> = true;
const batchSchemaMatches: Same<z.infer<typeof batchJobDataSchema>, BatchJobData> = true;
void promptSchemaMatches;
void batchSchemaMatches;

/** A prompts-queue job whose name or data is not one mintpipe makes. Retrying cannot help. */
export class InvalidJobDataError extends MintpipeError {
  override name = 'InvalidJobDataError';
  readonly retryable = false;
}

export type PromptQueueJob = { name: typeof BATCH_JOB; data: BatchJobData } | { name: typeof PROMPT_JOB; data: PromptJobData };

/** Shortens text that came from the job (a key or a name) before it goes into a message. */
function shown(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'data';
      const keys = issue.code === 'unrecognized_keys' ? `: ${issue.keys.map(shown).join(', ')}` : '';
      return `${field}: ${issue.code === 'unrecognized_keys' ? 'unexpected field' : issue.message}${keys}`;
    })
    .join('; ');
}

/** The job's name and data as the processor may trust them; throws InvalidJobDataError naming the bad field. */
export function parsePromptQueueJob(name: string, data: unknown): PromptQueueJob {
  const schema = name === PROMPT_JOB ? promptJobDataSchema : name === BATCH_JOB ? batchJobDataSchema : undefined;
  if (!schema) throw new InvalidJobDataError(`unknown job name ${shown(name)} (expected "${PROMPT_JOB}" or "${BATCH_JOB}")`);
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new InvalidJobDataError(`bad "${name}" job data: ${describeIssues(parsed.error)}`);
  return { name, data: parsed.data } as PromptQueueJob;
}
