import { describe, expect, it } from 'vitest';
import { configRefusal as refusal } from '../support/config-refusal.js';
import { loadConfig } from '../../config/index.js';

describe('yes/no settings (MINTPIPE_ALLOW_VOLATILE_REDIS, MINTPIPE_SCHEDULE_WEEKLY, MINTPIPE_SCHEDULE_MONTHLY)', () => {
  it('takes 1/true/yes/on and 0/false/no/off in any case, trimmed, and the default when unset or blank', () => {
    expect(loadConfig({}).redis.allowVolatile).toBe(false);
    expect(loadConfig({ MINTPIPE_ALLOW_VOLATILE_REDIS: ' ' }).redis.allowVolatile).toBe(false);
    for (const value of ['1', 'true', ' YES ', 'On']) expect(loadConfig({ MINTPIPE_ALLOW_VOLATILE_REDIS: value }).redis.allowVolatile, value).toBe(true);
    for (const value of ['0', 'FALSE', 'no', ' off ']) expect(loadConfig({ MINTPIPE_ALLOW_VOLATILE_REDIS: value }).redis.allowVolatile, value).toBe(false);
  });

  it('refuses anything else with one line naming the key and the value, rather than read a typo as the default', () => {
    for (const key of ['MINTPIPE_ALLOW_VOLATILE_REDIS', 'MINTPIPE_SCHEDULE_WEEKLY', 'MINTPIPE_SCHEDULE_MONTHLY']) {
      for (const value of ['ture', 'y', '2', 'enabled']) {
        expect(refusal({ [key]: value }).message).toBe(`${key}: expected true or false, got "${value}"`);
      }
    }
  });
});
