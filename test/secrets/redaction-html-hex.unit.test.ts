import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../src/secrets/redactor.js';

const KEY = 'mint_TestSecretKey0123456789abcdef';
const hexEntities = (text: string, x: 'x' | 'X') => [...text].map((c) => `&#${x}${c.charCodeAt(0).toString(16)};`).join('');

describe('a redactor and hexadecimal HTML entities', () => {
  const redact = createRedactor([KEY]);

  it.each(['x', 'X'] as const)('removes the key spelled as &#%s..; entities, whole and after its prefix', (x) => {
    for (const text of [hexEntities(KEY, x), hexEntities(KEY.toUpperCase(), x), hexEntities(KEY.slice('mint_'.length), x)]) {
      const out = redact(`<p>key ${text} refused</p>`);
      expect(out).toBe(`<p>key ${REDACTED} refused</p>`);
    }
  });
});
