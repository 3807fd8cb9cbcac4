/** The error a prompt stores (Redis, the ledger, `prompts status`): one line, with any secret redacted. */
import { describe, expect, it } from 'vitest';
import { registerSecret } from '../../src/secrets/registered-secrets.js';
import { errorText } from '../../src/prompts/describe.js';

const KEY = 'mint_PromptErrorSecret0123456789abcdefXYZ';
const SECRET_PART = KEY.slice('mint_'.length);

describe("a prompt's stored error", () => {
  registerSecret(KEY);

  it('holds neither the key nor its part after mint_, whatever error echoed them', () => {
    for (const err of [new Error(`upstream said: bad key ${KEY}`), new TypeError(`token ${SECRET_PART} refused`), `thrown text ${KEY}`]) {
      const text = errorText(err);
      expect(text).not.toContain(SECRET_PART);
      expect(text).toContain('[REDACTED]');
    }
  });

  it('is the first line of the error, named by its class', () => {
    expect(errorText(new RangeError('too far\n    at frame (/home/me/src/x.ts:1:1)'))).toBe('RangeError: too far');
  });
});
