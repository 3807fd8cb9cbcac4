/**
 * Processor of a night's `triage-night` job (added by the nightly planner per MINTPIPE_TRIAGE
 * recipe): until the night's windows the recipe reads are complete it waits as a delayed job
 * (polled, holding no worker), then runs the recipe (src/triage/nightly-triage.ts). A night whose
 * windows are still not complete after a day fails, visibly, rather than triaging partial data.
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from '../src/logger.js';
import { completedWindows, runNightlyTriage, type NightlyTriageDeps, type TriageNightData } from '../src/triage/nightly-triage.js';

export const TRIAGE_NIGHT_JOB = 'triage-night';

export interface TriageNightOptions {
  /** How often the windows are looked at again. @default 60000 */
  pollMs?: number;
  /** Longest wait for the windows after planning. @default 86400000 */
  maxWaitMs?: number;
}

export function createTriageNightProcessor(deps: NightlyTriageDeps & { logger: Logger }, options: TriageNightOptions = {}) {
  const pollMs = options.pollMs ?? 60_000;
  const maxWaitMs = options.maxWaitMs ?? 86_400_000;
  return async function triageNightJob(job: Job<TriageNightData>, token?: string) {
    const data = job.data;
    const now = deps.now?.() ?? Date.now();
    const done = await completedWindows(deps.warehouse, data.windows, data.plannedAtMs);
    if (done < data.windows.length) {
      if (now - data.plannedAtMs > maxWaitMs) {
        throw new UnrecoverableError(`triage ${data.recipe} (night ${data.night}): ${data.windows.length - done} of ${data.windows.length} windows it reads are still not complete; not run on partial data`);
      }
      deps.logger.info({ event: 'triage.waiting', recipe: data.recipe, night: data.night, complete: done, windows: data.windows.length }, 'triage waits for the night’s exports');
      await job.moveToDelayed(now + pollMs, token);
      throw new DelayedError();
    }
    const result = await runNightlyTriage(deps, data);
    deps.logger.info({ event: 'triage.sent', recipe: data.recipe, night: data.night, batch: result.batchId, prompts: result.sent, skipped: result.skipped }, 'nightly triage sent');
    return result;
  };
}
