/**
 * The data of a window job, checked by the worker before anything runs: a job added by hand (or
 * through a dashboard) with a bogus dataset, kind or dates fails alone with a clear reason and
 * records nothing.
 */
import { z } from 'zod';
import { DATASET_NAMES } from '../datasets/index.js';
import { formatIssues } from '../api/format-issue.js';
import { projectIdProblem } from '../../config/project-id.js';
import { isValidDay } from './dates.js';
import { MAX_RANGE_DAYS } from './windows.js';
import { jobUpstreamSchema } from '../queue/job-upstream.js';

const day = z.string().refine(isValidDay, { error: 'expected a real date YYYY-MM-DD' });

export const exportJobDataSchema = z
  .looseObject({
    dataset: z.enum(DATASET_NAMES),
    projectId: z.string().superRefine((id, ctx) => {
      const problem = projectIdProblem(id);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    }),
    dateFrom: day,
    dateTo: day,
    kind: z.enum(['nightly', 'reexport', 'manual']),
    runId: z.string().min(1).max(300),
    checkpoint: z.looseObject({ runId: z.string(), offset: z.number().int().min(0), rows: z.number().int().min(0) }).optional(),
    upstream: jobUpstreamSchema.optional(),
  })
  .refine((d) => d.dateTo > d.dateFrom, { error: 'dateTo must be after dateFrom', path: ['dateTo'] })
  .refine((d) => (Date.parse(d.dateTo) - Date.parse(d.dateFrom)) / 86_400_000 <= MAX_RANGE_DAYS, {
    error: `window longer than ${MAX_RANGE_DAYS} days`,
    path: ['dateTo'],
  });

/** The problems of job data that breaks the schema, in one line; null when it is valid. */
export function exportJobDataProblem(data: unknown): string | null {
  const result = exportJobDataSchema.safeParse(data, { reportInput: true });
  return result.success ? null : formatIssues(result.error.issues);
}
