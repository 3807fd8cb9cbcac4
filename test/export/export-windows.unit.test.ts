import { describe, expect, it } from 'vitest';
import { planNightly, type NightlySettings } from '../../src/export/nightly-plan.js';
import { planWindows } from '../../src/export/windows.js';

describe('export windows', () => {
  it('splits a range into one window per day with an exclusive end', () => {
    expect(planWindows('p', '2026-10-01', '2026-10-04', 'day')).toEqual([
      { projectId: 'p', dateFrom: '2026-10-01', dateTo: '2026-10-02' },
      { projectId: 'p', dateFrom: '2026-10-02', dateTo: '2026-10-03' },
      { projectId: 'p', dateFrom: '2026-10-03', dateTo: '2026-10-04' },
    ]);
  });

  it('keeps a range as its own window, not a sum of days', () => {
    expect(planWindows('p', '2026-10-01', '2026-10-04', 'range')).toEqual([{ projectId: 'p', dateFrom: '2026-10-01', dateTo: '2026-10-04' }]);
  });

  it('cuts calendar weeks (Monday to Monday) and months at the range ends', () => {
    // 2026-10-01 is a Thursday; 2026-10-05 a Monday.
    expect(planWindows('p', '2026-10-01', '2026-10-15', 'week').map((w) => `${w.dateFrom}..${w.dateTo}`)).toEqual([
      '2026-10-01..2026-10-05',
      '2026-10-05..2026-10-12',
      '2026-10-12..2026-10-15',
    ]);
    expect(planWindows('p', '2026-01-15', '2026-03-02', 'month').map((w) => `${w.dateFrom}..${w.dateTo}`)).toEqual([
      '2026-01-15..2026-02-01',
      '2026-02-01..2026-03-01',
      '2026-03-01..2026-03-02',
    ]);
  });

  it('refuses impossible dates, reversed ranges and unknown grains with the flag named', () => {
    expect(() => planWindows('p', '2026-02-30', '2026-03-02', 'day')).toThrow(/--from: 2026-02-30 is not a real calendar date/);
    expect(() => planWindows('p', '2026-10-04', '2026-10-04', 'day')).toThrow(/--to: .* must be after --from/);
    expect(() => planWindows('p', '2026/10/01', '2026-10-04', 'day')).toThrow(/--from: expected a date as YYYY-MM-DD/);
  });
});

describe('nightly plan', () => {
  const settings: NightlySettings = {
    projects: ['docs', 'api'],
    datasets: ['visitors'],
    assistantThreads: [],
    reexportDays: { default: 3 },
    weekly: true,
    monthly: true,
    timezone: 'UTC',
  };

  it('exports yesterday and re-exports the three days before it, per project', () => {
    const windows = planNightly(new Date('2026-11-19T02:00:00Z'), { ...settings, projects: ['docs'] });
    expect(windows).toEqual([
      { dataset: 'visitors', projectId: 'docs', dateFrom: '2026-11-18', dateTo: '2026-11-19', kind: 'nightly' },
      { dataset: 'visitors', projectId: 'docs', dateFrom: '2026-11-17', dateTo: '2026-11-18', kind: 'reexport' },
      { dataset: 'visitors', projectId: 'docs', dateFrom: '2026-11-16', dateTo: '2026-11-17', kind: 'reexport' },
      { dataset: 'visitors', projectId: 'docs', dateFrom: '2026-11-15', dateTo: '2026-11-16', kind: 'reexport' },
    ]);
  });

  it('adds last week on Mondays and last month on the 1st as their own windows', () => {
    const monday = planNightly(new Date('2026-11-23T02:00:00Z'), { ...settings, projects: ['docs'] });
    expect(monday).toContainEqual({ dataset: 'visitors', projectId: 'docs', dateFrom: '2026-11-16', dateTo: '2026-11-23', kind: 'nightly' });
    const first = planNightly(new Date('2026-12-01T02:00:00Z'), { ...settings, projects: ['docs'] });
    expect(first).toContainEqual({ dataset: 'visitors', projectId: 'docs', dateFrom: '2026-11-01', dateTo: '2026-12-01', kind: 'nightly' });
    expect(first.filter((w) => w.dateTo === '2026-12-01' && w.dateFrom === '2026-11-24')).toEqual([]);
  });

  it('takes "yesterday" in the schedule time zone', () => {
    // 01:30 UTC on the 19th is still the 18th in New York: yesterday there is the 17th.
    const windows = planNightly(new Date('2026-11-19T01:30:00Z'), { ...settings, projects: ['docs'], reexportDays: { default: 0 }, timezone: 'America/New_York' });
    expect(windows).toEqual([{ dataset: 'visitors', projectId: 'docs', dateFrom: '2026-11-17', dateTo: '2026-11-18', kind: 'nightly' }]);
  });

  it('plans every dataset of every project, threads right after assistant where enabled, re-export days per dataset', () => {
    const windows = planNightly(new Date('2026-11-19T02:00:00Z'), {
      ...settings,
      datasets: ['feedback', 'assistant', 'searches'],
      assistantThreads: ['api'],
      reexportDays: { default: 0, feedback: 2 },
      weekly: false,
      monthly: false,
    });
    expect(windows.map((w) => `${w.projectId} ${w.dataset} ${w.dateFrom} ${w.kind}`)).toEqual([
      'docs feedback 2026-11-18 nightly',
      'docs feedback 2026-11-17 reexport',
      'docs feedback 2026-11-16 reexport',
      'docs assistant 2026-11-18 nightly',
      'docs searches 2026-11-18 nightly',
      'api feedback 2026-11-18 nightly',
      'api feedback 2026-11-17 reexport',
      'api feedback 2026-11-16 reexport',
      'api assistant 2026-11-18 nightly',
      'api assistant-threads 2026-11-18 nightly',
      'api searches 2026-11-18 nightly',
    ]);
  });

  it('plans every configured project', () => {
    const windows = planNightly(new Date('2026-11-19T02:00:00Z'), { ...settings, reexportDays: { default: 0 } });
    expect(windows.map((w) => w.projectId)).toEqual(['docs', 'api']);
  });
});
