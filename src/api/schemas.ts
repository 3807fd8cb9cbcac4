/**
 * The agent job contract. The spec marks no field required, so each answer is asked only for what
 * its operation needs: a job read its `status` (the id is the one asked for when the body leaves it
 * out), a create the new job's `id` (without it the job cannot be followed), a message nothing (its
 * 200 is the proof it was taken). Nothing promises the other fields, and extra fields are ignored.
 * Analytics bodies are checked against their dataset's declaration (src/datasets/).
 */
import { z } from 'zod';

export const AGENT_JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;

/** Statuses after which an agent job no longer changes; polling stops there. */
export const TERMINAL_STATUSES = ['completed', 'archived', 'failed'] as const satisfies readonly AgentJobStatus[];

const jobId = z.string().min(1, { error: 'empty id' });
const jobStatus = z.enum(AGENT_JOB_STATUSES);

/** An agent job body with nothing required: what a message's 200 may carry. */
export const agentJobAnswerSchema = z.object({
  id: jobId.optional(),
  status: jobStatus.optional(),
  prLink: z
    .string()
    .nullish()
    .transform((link) => link ?? null),
  source: z.unknown().optional(),
  model: z.unknown().optional(),
  createdAt: z.unknown().optional(),
  archivedAt: z.unknown().optional(),
});

/** A job read (GET): its status is what the read is for. */
export const agentJobSchema = agentJobAnswerSchema.extend({ status: jobStatus });

/** A create's 201: the new job's id is what the create is for. */
export const createdJobSchema = agentJobAnswerSchema.extend({ id: jobId });

export type AgentJobStatus = (typeof AGENT_JOB_STATUSES)[number];
/** An agent job as read: its id (the one asked for when the body left it out) and status. */
export type AgentJob = z.output<typeof agentJobSchema> & { id: string };
/** A POST's answer: the job's id (the one sent to, for a message) and what else the body said. */
export type AgentJobAnswer = z.output<typeof agentJobAnswerSchema> & { id: string };

export function isTerminalStatus(status: AgentJobStatus): boolean {
  return (TERMINAL_STATUSES as readonly AgentJobStatus[]).includes(status);
}
