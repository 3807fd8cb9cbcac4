/** What `export --wait` says of a window it follows: a delayed one names what it waits for. */
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { windowProgress } from '../../src/cli/window-progress.js';

/** The fields of a BullMQ job the follower reads. */
function job(fields: { progress?: object; attemptsMade?: number; delay?: number }): Job {
  return { timestamp: 1_000_000, delay: fields.delay ?? 0, attemptsMade: fields.attemptsMade ?? 0, progress: fields.progress ?? 0, opts: { attempts: 5 } } as unknown as Job;
}

describe('a window followed by export --wait', () => {
  it('says it waits for the request budget when its processor delayed it for the budget in this attempt', () => {
    const waiting = job({ delay: 90_000, attemptsMade: 1, progress: { rows: 250, waitingFor: 'budget', attempt: 1 } });
    expect(windowProgress('delayed', waiting, 1_000_000 + 30_000)).toEqual({ state: 'waiting for the request budget', detail: 'waiting for the request budget (60s left), 250 rows' });
  });

  it("says it waits for its source dataset's run when it does", () => {
    const waiting = job({ delay: 5_000, progress: { rows: 0, waitingFor: 'source', attempt: 0 } });
    expect(windowProgress('delayed', waiting, 1_000_000).state).toBe("waiting for its source dataset's run");
  });

  it('says it waits to retry after a failure when delayed by a later attempt than the budget wait', () => {
    const retrying = job({ delay: 4_000, attemptsMade: 2, progress: { rows: 250, waitingFor: 'budget', attempt: 1 } });
    expect(windowProgress('delayed', retrying, 1_000_000)).toEqual({ state: 'waiting to retry after a failure (attempt 3 of 5)', detail: 'waiting to retry after a failure (attempt 3 of 5) (4s left), 250 rows' });
  });

  it('says queued and running in words, with its rows', () => {
    expect(windowProgress('waiting', job({}), 0)).toEqual({ state: 'queued', detail: 'queued, 0 rows' });
    expect(windowProgress('active', job({ progress: { rows: 7 } }), 0)).toEqual({ state: 'running', detail: 'running, 7 rows' });
  });
});
