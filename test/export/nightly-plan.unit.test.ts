/**
 * Which datasets a night plans per project: assistant threads (one request per conversation) only
 * for the projects that asked for them, right after `assistant`, however the dataset list names
 * them; which months and weeks a night adds, by the day of its own time zone. (test/export/export-windows.unit.test.ts
 * covers the windows of a night.)
 */
import { describe, expect, it } from 'vitest';
import { planNightly, projectDatasets, type NightlySettings } from '../../src/export/nightly-plan.js';

describe('the datasets a night plans for a project', () => {
  const datasets = ['views', 'assistant-threads', 'assistant', 'searches'] as const;

  it('leaves assistant threads out for a project that did not ask for them, even when the list names them', () => {
    expect(projectDatasets('docs', { datasets: [...datasets], assistantThreads: [] })).toEqual(['views', 'assistant', 'searches']);
  });

  it('puts assistant threads right after assistant, once, for a project that asked for them', () => {
    expect(projectDatasets('docs', { datasets: [...datasets], assistantThreads: ['docs'] })).toEqual(['views', 'assistant', 'assistant-threads', 'searches']);
  });

  it('plans no threads without assistant', () => {
    expect(projectDatasets('docs', { datasets: ['views', 'assistant-threads'], assistantThreads: ['docs'] })).toEqual(['views']);
  });
});

describe('the nightly plan at a day boundary of its time zone', () => {
  const settings: NightlySettings = {
    projects: ['docs'],
    datasets: ['visitors'],
    assistantThreads: [],
    reexportDays: { default: 0 },
    weekly: false,
    monthly: true,
    timezone: 'UTC',
  };
  const windows = (at: string, timezone: string) => planNightly(new Date(at), { ...settings, timezone }).map((w) => `${w.dateFrom}..${w.dateTo}`);

  it('exports last month when it is already the 1st in the schedule zone though still the 30th in UTC', () => {
    // 12:00 UTC on 30 November is 01:00 on 1 December in Auckland (UTC+13).
    expect(windows('2026-11-30T12:00:00Z', 'Pacific/Auckland')).toEqual(['2026-11-30..2026-12-01', '2026-11-01..2026-12-01']);
  });

  it('exports no month when it is the 1st in UTC but still the 30th in the schedule zone', () => {
    // 02:00 UTC on 1 December is 21:00 on 30 November in New York.
    expect(windows('2026-12-01T02:00:00Z', 'America/New_York')).toEqual(['2026-11-29..2026-11-30']);
  });

  it('adds last week on a Monday of the schedule zone, not of UTC', () => {
    // 20:00 UTC on Sunday 22 November is 09:00 on Monday 23 November in Auckland.
    const auckland = planNightly(new Date('2026-11-22T20:00:00Z'), { ...settings, monthly: false, weekly: true, timezone: 'Pacific/Auckland' });
    expect(auckland.map((w) => `${w.dateFrom}..${w.dateTo}`)).toEqual(['2026-11-22..2026-11-23', '2026-11-16..2026-11-23']);
    // 02:00 UTC on Monday 23 November is 21:00 on Sunday 22 November in New York: no week yet.
    const newYork = planNightly(new Date('2026-11-23T02:00:00Z'), { ...settings, monthly: false, weekly: true, timezone: 'America/New_York' });
    expect(newYork.map((w) => `${w.dateFrom}..${w.dateTo}`)).toEqual(['2026-11-21..2026-11-22']);
  });
});
