/**
 * The response contract, checked on every body. Visitor counts are non-negative safe integers and
 * `total` is deduplicated across human and AI: `max(human, ai) ≤ total ≤ human + ai`, for every
 * row and for the site totals. Agent jobs: only `id` and `status` are relied on; nothing promises
 * the other fields, and extra fields are ignored.
 */
import { z } from 'zod';
import { describeValue } from './describe-value.js';

const count = z
  .number()
  .int({ error: (issue) => `${describeValue(issue.input)} is not a safe integer` })
  .min(0, { error: (issue) => `${describeValue(issue.input)} is negative` });

/** Adds an issue on `total` when it breaks the deduplication invariant. */
function checkTotal(counts: { human: number; ai: number; total: number }, ctx: z.RefinementCtx): void {
  const { human, ai, total } = counts;
  // zod runs refinements after non-fatal issues too; a bad count is already reported on its own.
  if (![human, ai, total].every((n) => Number.isSafeInteger(n) && n >= 0)) return;
  if (total < Math.max(human, ai)) {
    ctx.addIssue({ code: 'custom', path: ['total'], message: `${total} is less than max(human, ai) = ${Math.max(human, ai)}` });
  } else if (total > human + ai) {
    ctx.addIssue({ code: 'custom', path: ['total'], message: `${total} is more than human + ai = ${human + ai}` });
  }
}

export const siteTotalsSchema = z.object({ human: count, ai: count, total: count }).superRefine(checkTotal);

export const visitorRowSchema = z
  .object({ path: z.string().min(1, { error: 'empty path' }), human: count, ai: count, total: count })
  .superRefine(checkTotal);

export const visitorsPageSchema = z.object({
  totals: siteTotalsSchema,
  visitors: z.array(visitorRowSchema),
  hasMore: z.boolean(),
});

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

export type SiteTotals = z.output<typeof siteTotalsSchema>;
export type VisitorRow = z.output<typeof visitorRowSchema>;
export type VisitorsPage = z.output<typeof visitorsPageSchema>;
export type AgentJobStatus = (typeof AGENT_JOB_STATUSES)[number];
export type AgentJob = z.output<typeof agentJobSchema>;

export function isTerminalStatus(status: AgentJobStatus): boolean {
  return (TERMINAL_STATUSES as readonly AgentJobStatus[]).includes(status);
}
