/**
 * Redaction of a configured secret that is not shaped like a Mintlify key (so the `mint_…` catch-all
 * cannot hide a weak pattern), the cases StrykerJS showed no test held (`npm run mutation`).
 */
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../src/secrets/redactor.js';

const SECRET = 'Quokka-Jive-2048';
const hex = (text: string) => Buffer.from(text).toString('hex');

describe('redaction of a configured secret, edge by edge', () => {
  it('removes it hex-encoded in either case, and spelled with other separators than its own', () => {
    const redact = createRedactor([SECRET]);
    expect(redact(`k=${hex(SECRET)}`)).toBe(`k=${REDACTED}`);
    expect(redact(`k=${hex(SECRET).toUpperCase()}`)).toBe(`k=${REDACTED}`);
    expect(redact('k=Quokka Jive 2048.')).toBe(`k=${REDACTED}.`);
  });

  it('removes the separators a secret starts and ends with, and the secret without them', () => {
    const redact = createRedactor([`__${SECRET}__`]);
    expect(redact(`x __${SECRET}__ y`)).toBe(`x ${REDACTED} y`);
    expect(redact(`x ${SECRET} y`)).toBe(`x ${REDACTED} y`);
    expect(createRedactor([`${SECRET}__`])(`x ${SECRET}__ y`)).toBe(`x ${REDACTED} y`);
  });

  it('removes the longer of two secrets whole when one contains the other, in any order given', () => {
    expect(createRedactor(['Quokka-Jive', SECRET])(`k=${SECRET}`)).toBe(`k=${REDACTED}`);
    expect(createRedactor([SECRET, 'Quokka-Jive'])(`k=${SECRET}`)).toBe(`k=${REDACTED}`);
  });

  it('removes each of several secrets on its own', () => {
    const redact = createRedactor(['first-secret-value', SECRET]);
    expect(redact(`a ${SECRET} b`)).toBe(`a ${REDACTED} b`);
    expect(redact('a first-secret-value b')).toBe(`a ${REDACTED} b`);
  });

  it('removes base64 and url-safe base64 of text holding the secret, with / as it is or JSON-escaped', () => {
    const secret = 'Quokka>Jive?2048~~';
    const redact = createRedactor([secret]);
    for (const prefix of ['', 'a', 'ab']) {
      const standard = Buffer.from(`${prefix}${secret}!`).toString('base64');
      const urlSafe = Buffer.from(`${prefix}${secret}`).toString('base64url');
      expect(redact(`b=${standard}`), standard).not.toMatch(/MjA0|Sml2|Kppdm|a2th/);
      expect(redact(`u=${urlSafe}`), urlSafe).not.toMatch(/MjA0|Sml2|Kppdm|a2th/);
      expect(redact(JSON.stringify({ b: standard })), standard).not.toMatch(/MjA0|Sml2|Kppdm|a2th/);
    }
    const slashed = Buffer.from(`${secret}!`).toString('base64');
    expect(slashed).toMatch(/[/]/);
    expect(redact(`b=${slashed.replace('/', '\\/')}`)).not.toMatch(/MjA0|Sml2|Kppdm|a2th/);
    expect(Buffer.from(`ab${secret}`).toString('base64')).toMatch(/[+]/);
  });

  it('removes base64 of a secret of exactly eight letters and digits', () => {
    const encoded = Buffer.from('token Quokka20 end').toString('base64');
    expect(createRedactor(['Quokka20'])(encoded)).toContain(REDACTED);
  });

  it('matches a secret under eight letters and digits only as written, in any case, so ordinary words survive', () => {
    const redact = createRedactor(['ab-cd-ef-g']);
    expect(redact('AB-CD-EF-G')).toBe(REDACTED);
    expect(redact('ab-cd-ef-g')).toBe(REDACTED);
    expect(redact('a b c d e f g')).toBe('a b c d e f g');
    const base64 = Buffer.from('ab-cd-ef-g').toString('base64');
    expect(redact(base64)).toBe(base64);
    expect(createRedactor(['Quokka20'])('q u o k k a 2 0')).toBe(REDACTED);
  });

  it('leaves text alone when nothing is configured, including the word undefined', () => {
    expect(createRedactor([])('undefined is not a secret')).toBe('undefined is not a secret');
    expect(createRedactor(['abc'])('undefined is not a secret')).toBe('undefined is not a secret');
  });
});
