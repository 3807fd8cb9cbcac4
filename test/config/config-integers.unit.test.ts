import { describe, expect, it } from 'vitest';
import { configRefusal as refusal } from '../support/config-refusal.js';
import { loadConfig } from '../../config/index.js';

describe('integer settings (MINTPIPE_EXPORT_CONCURRENCY, 1–64)', () => {
  it('takes digits, trimmed, within the range, and the default when unset or blank', () => {
    expect(loadConfig({}).export.concurrency).toBe(4);
    expect(loadConfig({ MINTPIPE_EXPORT_CONCURRENCY: '  ' }).export.concurrency).toBe(4);
    expect(loadConfig({ MINTPIPE_EXPORT_CONCURRENCY: '1' }).export.concurrency).toBe(1);
    expect(loadConfig({ MINTPIPE_EXPORT_CONCURRENCY: ' 64 ' }).export.concurrency).toBe(64);
    expect(loadConfig({ MINTPIPE_EXPORT_CONCURRENCY: '08' }).export.concurrency).toBe(8);
  });

  it('refuses anything else with one line naming the key, the range and the value', () => {
    for (const value of ['0', '65', '-1', '1e1', '4.0', '0x8', '8 workers', 'Infinity', 'NaN', '99999999999999999999']) {
      const err = refusal({ MINTPIPE_EXPORT_CONCURRENCY: value });
      expect(err.message).toBe(`MINTPIPE_EXPORT_CONCURRENCY: expected an integer from 1 to 64, got "${value}"`);
    }
  });
});

describe('MINTPIPE_GATEWAY_CONCURRENCY (1–64)', () => {
  it('defaults to 2 gateway queries at once and takes a whole number in range', () => {
    expect(loadConfig({}).gateway.concurrency).toBe(2);
    expect(loadConfig({ MINTPIPE_GATEWAY_CONCURRENCY: ' 5 ' }).gateway.concurrency).toBe(5);
  });

  it('refuses anything else with one line naming the key, the range and the value', () => {
    for (const value of ['0', '65', 'two', '1.5']) {
      expect(refusal({ MINTPIPE_GATEWAY_CONCURRENCY: value }).message).toBe(`MINTPIPE_GATEWAY_CONCURRENCY: expected an integer from 1 to 64, got "${value}"`);
    }
  });
});
