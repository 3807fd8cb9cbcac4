/**
 * The agent job contract, checked on every body: only `id` and `status` are relied on; nothing
 * promises the other fields, and extra fields are ignored. Analytics bodies are checked against
 * their dataset's declaration (src/datasets/).
 */
import { z } from 'zod';

export const AGENT_JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;

/** Statuses after which an agent job no longer changes; polling stops there. */
export const TERMINAL_STATUSES = ['completed', 'archived', 'failed'] as const satisfies readonly AgentJobStatus[];

export const agentJobSchema = z.object({
  id: z.string().min(1, { error: 'empty id' }),
  status: z.enum(AGENT_JOB_STATUSES),
  prLink: z
    .string()
    .nullish()
    .transform((link) => link ?? null),
  source: z.unknown().optional(),
  model: z.unknown().optional(),
  createdAt: z.unknown().optional(),
  archivedAt: z.unknown().optional(),
});

export type AgentJobStatus = (typeof AGENT_JOB_STATUSES)[number];
export type AgentJob = z.output<typeof agentJobSchema>;

export function isTerminalStatus(status: AgentJobStatus): boolean {
  return (TERMINAL_STATUSES as readonly AgentJobStatus[]).includes(status);
}
