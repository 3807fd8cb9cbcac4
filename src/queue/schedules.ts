/** Schedules, declared as data and upserted idempotently (by id) into BullMQ's job scheduler. */
import type { Queue } from 'bullmq';

export interface ScheduleSpec {
  id: string;
  /** Cron pattern. */
  pattern: string;
  /** IANA time zone of the pattern. */
  tz: string;
  jobName: string;
}

export function nightlySchedule(cron: string, tz: string): ScheduleSpec {
  return { id: 'nightly-export', pattern: cron, tz, jobName: 'plan-nightly' };
}

export async function upsertSchedule(queue: Queue, spec: ScheduleSpec): Promise<void> {
  await queue.upsertJobScheduler(
    spec.id,
    { pattern: spec.pattern, tz: spec.tz },
    { name: spec.jobName, data: {}, opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 }, priority: 1 } },
  );
}

export async function listSchedules(queue: Queue): Promise<Array<{ id: string; pattern?: string | null; tz?: string | null; next?: number | null }>> {
  const schedulers = await queue.getJobSchedulers();
  return schedulers.map((s) => ({ id: s.key, pattern: s.pattern, tz: s.tz, next: s.next }));
}
