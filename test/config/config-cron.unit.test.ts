import { describe, expect, it } from 'vitest';
import { configRefusal as refusal } from '../support/config-refusal.js';
import { loadConfig } from '../../config/index.js';

describe('the nightly schedule (MINTPIPE_SCHEDULE_CRON)', () => {
  it('accepts the default and any 5-field pattern, which fires at most once a minute', () => {
    expect(loadConfig({}).export.cron).toBe('0 2 * * *');
    for (const pattern of ['30 3 * * 1-5', '*/15 * * * *', '* * * * *', '0 0 1 * *', '@daily']) {
      expect(loadConfig({ MINTPIPE_SCHEDULE_CRON: pattern }).export.cron).toBe(pattern);
    }
  });

  it('refuses a seconds field (6 fields) with exit 2 and one line naming the key and what it expects', () => {
    for (const pattern of ['*/5 * * * * *', '0 0 2 * * *', '* * * * * *']) {
      const err = refusal({ MINTPIPE_SCHEDULE_CRON: pattern });
      expect(err.exitCode).toBe(2);
      expect(err.key).toBe('MINTPIPE_SCHEDULE_CRON');
      expect(err.message).toMatch(/^MINTPIPE_SCHEDULE_CRON: a seconds field is not allowed .*expected 5 fields/);
      expect(err.message).not.toContain('\n');
    }
  });

  it('refuses a macro that fires more than once a minute', () => {
    expect(refusal({ MINTPIPE_SCHEDULE_CRON: '@secondly' }).message).toMatch(/^MINTPIPE_SCHEDULE_CRON: fires more than once a minute/);
  });

  it('refuses patterns BullMQ could not schedule: wrong field count, values out of range, words', () => {
    for (const pattern of ['0 2 * *', '61 2 * * *', '0 25 * * *', 'nightly', '0 2 * * * 2024 1']) {
      const err = refusal({ MINTPIPE_SCHEDULE_CRON: pattern });
      expect(err.key, pattern).toBe('MINTPIPE_SCHEDULE_CRON');
      expect(err.message).toMatch(/expected/);
      expect(err.message).not.toContain('\n');
    }
  });

  it('refuses a time zone Node does not know, naming MINTPIPE_SCHEDULE_TZ', () => {
    expect(loadConfig({ MINTPIPE_SCHEDULE_TZ: 'Europe/Berlin' }).export.timezone).toBe('Europe/Berlin');
    const err = refusal({ MINTPIPE_SCHEDULE_TZ: 'Mars/Olympus_Mons' });
    expect(err.key).toBe('MINTPIPE_SCHEDULE_TZ');
    expect(err.exitCode).toBe(2);
  });
});
