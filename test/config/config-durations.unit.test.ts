import { describe, expect, it } from 'vitest';
import { configRefusal as refusal } from '../support/config-refusal.js';
import { loadConfig, MAX_TIMER_MS, parseDurationMs } from '../../config/index.js';

/** Settings whose value ends up in a Node timer (setTimeout directly or through BullMQ). */
const TIMER_SETTINGS = ['MINTPIPE_HTTP_TIMEOUT', 'MINTPIPE_RETRY_MAX_TIME', 'MINTPIPE_LOCK_DURATION', 'MINTPIPE_STALLED_INTERVAL', 'MINTPIPE_SHUTDOWN_GRACE', 'MINTPIPE_FOLLOW_GRACE', 'MINTPIPE_REAP_AFTER'];

describe('durations that feed a timer', () => {
  it('holds 2^31-1 ms at most: what setTimeout keeps (more fires after 1 ms)', () => {
    expect(MAX_TIMER_MS).toBe(2_147_483_647);
  });

  it('accepts up to 24 days', () => {
    for (const key of TIMER_SETTINGS) {
      expect(() => loadConfig({ [key]: '24d' }), key).not.toThrow();
    }
    expect(loadConfig({ MINTPIPE_HTTP_TIMEOUT: `${MAX_TIMER_MS}ms` }).api.timeoutMs).toBe(MAX_TIMER_MS);
  });

  it('refuses one more millisecond, and 25 days, with exit 2 and one line naming the key and the limit', () => {
    for (const key of TIMER_SETTINGS) {
      for (const value of [`${MAX_TIMER_MS + 1}ms`, '25d', '30d']) {
        const err = refusal({ [key]: value });
        expect(err.key, `${key}=${value}`).toBe(key);
        expect(err.exitCode).toBe(2);
        expect(err.message).toMatch(new RegExp(`^${key}: expected a duration of at most \\d+ms \\(about 24\\.8d, the longest Node timer\\), got "${value}"$`));
      }
    }
  });

  it('keeps room for the 10 s the hard stop adds to MINTPIPE_SHUTDOWN_GRACE', () => {
    expect(refusal({ MINTPIPE_SHUTDOWN_GRACE: `${MAX_TIMER_MS - 9_999}ms` }).key).toBe('MINTPIPE_SHUTDOWN_GRACE');
    expect(loadConfig({ MINTPIPE_SHUTDOWN_GRACE: `${MAX_TIMER_MS - 10_000}ms` }).shutdownGraceMs).toBe(MAX_TIMER_MS - 10_000);
  });
});

describe('durations that no timer holds', () => {
  it('keeps long retention, deadlines and poll delays valid (a Redis expiry, a clock comparison, a delayed job)', () => {
    const config = loadConfig({
      MINTPIPE_PROMPT_RETENTION: '400d',
      MINTPIPE_PROMPT_DEADLINE: '60d',
      MINTPIPE_POLL_INITIAL: '26d',
      MINTPIPE_POLL_MAX: '30d',
      MINTPIPE_POLL_SETTLE: '30d',
      MINTPIPE_MESSAGE_RATE: '1000/30d',
    });
    expect(config.prompts.pollSettleMs).toBe(30 * 86_400_000);
    expect(loadConfig({}).prompts.pollSettleMs).toBe(60_000);
    expect(config.prompts.retentionMs).toBe(400 * 86_400_000);
    expect(config.prompts.deadlineMs).toBe(60 * 86_400_000);
    expect(config.prompts.pollMaxMs).toBe(30 * 86_400_000);
    expect(config.messageRate).toEqual({ limit: 1000, windowMs: 30 * 86_400_000 });
    expect(loadConfig({ MINTPIPE_PROMPT_RETENTION: '30d' }).prompts.retentionMs).toBe(2_592_000_000);
  });

  it('still refuses a value no integer holds, and one that rounds to zero', () => {
    expect(parseDurationMs(`${'9'.repeat(20)}d`)).toBeUndefined();
    expect(parseDurationMs('0.4ms')).toBeUndefined();
    expect(refusal({ MINTPIPE_PROMPT_RETENTION: `${'9'.repeat(20)}d` }).key).toBe('MINTPIPE_PROMPT_RETENTION');
    expect(refusal({ MINTPIPE_POLL_SETTLE: 'soon' }).message).toMatch(/^MINTPIPE_POLL_SETTLE: /);
    // Settling must be possible before the deadline ends the prompt.
    expect(refusal({ MINTPIPE_POLL_SETTLE: '2h' }).message).toBe('MINTPIPE_POLL_SETTLE: must be less than MINTPIPE_PROMPT_DEADLINE');
    expect(loadConfig({ MINTPIPE_POLL_SETTLE: '2h', MINTPIPE_PROMPT_DEADLINE: '3h' }).prompts.pollSettleMs).toBe(7_200_000);
    // Unset, it follows a short deadline.
    expect(loadConfig({ MINTPIPE_PROMPT_DEADLINE: '5s' }).prompts.pollSettleMs).toBe(2500);
  });
});
