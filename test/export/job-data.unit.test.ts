/**
 * A window job's data is checked before anything runs: one added by hand (or through a dashboard)
 * with a bogus dataset, kind, dates or a window longer than an export may span fails alone with a
 * reason naming the field.
 */
import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/export/dates.js';
import { exportJobDataProblem } from '../../src/export/job-data.js';
import { MAX_RANGE_DAYS } from '../../src/export/windows.js';

const job = { dataset: 'visitors', projectId: 'docs', dateFrom: '2026-10-01', dateTo: '2026-10-02', kind: 'manual', runId: 'r1' };

describe('the data of a window job', () => {
  it('is accepted as the queue adds it, up to a window of exactly the longest range', () => {
    expect(exportJobDataProblem(job)).toBeNull();
    expect(exportJobDataProblem({ ...job, dateTo: addDays(job.dateFrom, MAX_RANGE_DAYS) })).toBeNull();
  });

  it('is refused, naming the field, for a window one day longer than the longest range', () => {
    expect(exportJobDataProblem({ ...job, dateTo: addDays(job.dateFrom, MAX_RANGE_DAYS + 1) })).toMatch(new RegExp(`dateTo.*window longer than ${MAX_RANGE_DAYS} days`));
  });

  it.each([
    ['an end not after its start', { dateTo: job.dateFrom }, /dateTo.*dateTo must be after dateFrom/],
    ['a date that does not exist', { dateFrom: '2026-02-30' }, /dateFrom.*expected a real date YYYY-MM-DD/],
    ['an unknown dataset', { dataset: 'pageviews' }, /dataset/],
    ['an unknown kind', { kind: 'hourly' }, /kind/],
    ['an empty run id', { runId: '' }, /runId/],
  ])('is refused, naming the field, for %s', (_what, change, problem) => {
    expect(exportJobDataProblem({ ...job, ...change })).toMatch(problem);
  });
});
