/**
 * Timestamps without a zone are UTC whatever the machine's zone: run here in a zone that is not UTC
 * (Node applies a TZ set at run time), so that reading them as local time would show.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FindingLog, RowContext } from '../../src/datasets/index.js';

describe('timestamps on a machine that is not on UTC', () => {
  const zone = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = 'America/New_York';
  });
  afterAll(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('reads every zoneless form as UTC and keeps explicit zones', () => {
    const log = new FindingLog();
    const ctx = new RowContext(log, 'keep');
    expect(new Date(2026, 9, 1, 12).getUTCHours()).toBe(16);
    expect(ctx.timestamp('t', '2026-10-01')).toBe('2026-10-01 00:00:00.000');
    expect(ctx.timestamp('t', '2026-10-01 12:34')).toBe('2026-10-01 12:34:00.000');
    expect(ctx.timestamp('t', '2026-10-01T12:34:56')).toBe('2026-10-01 12:34:56.000');
    expect(ctx.timestamp('t', '2026-10-01 12:34:56.789')).toBe('2026-10-01 12:34:56.789');
    expect(ctx.timestamp('t', '2026-10-01T12:34:56+02:00')).toBe('2026-10-01 10:34:56.000');
    expect(ctx.timestamp('t', '2026-10-01T12:34:56Z')).toBe('2026-10-01 12:34:56.000');
    expect(log.drain()).toEqual([]);
  });
});
