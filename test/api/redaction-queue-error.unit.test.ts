import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { AuthError } from '../../src/api/index.js';
import { registerSecret } from '../../src/logger.js';
import { toQueueError } from '../../jobs/job-control.js';
import { keySpellings, revealsKey } from '../support/key-spellings.js';

const KEY = 'mint_QueueErrorSecret0123456789abcdef';
registerSecret(KEY);
const ECHO = Object.values(keySpellings(KEY)).join(' ');

describe('what a job throws to the queue (toQueueError)', () => {
  it('keeps the verdict and the error name, and redacts every spelling of the key from message and stack', () => {
    const cases: Array<[unknown, boolean]> = [
      [new AuthError({ op: 'getAnalytics', status: 401, serverMessage: ECHO }), true],
      [new Error(`socket closed: ${ECHO}`), false],
      [`a thrown string ${ECHO}`, false],
    ];
    for (const [thrown, unrecoverable] of cases) {
      const result = toQueueError(thrown);
      expect(result.unrecoverable).toBe(unrecoverable);
      expect(result.error instanceof UnrecoverableError).toBe(unrecoverable);
      expect(result.error.message).toContain('[REDACTED]');
      expect(revealsKey(`${result.error.message}\n${result.error.stack}`, KEY)).toBe(false);
      expect(result.error.stack).toBe(`${result.error.name}: ${result.error.message}`);
    }
    expect(toQueueError(cases[0]![0]).error.message).toMatch(/^AuthError: getAnalytics: HTTP 401/);
  });
});
