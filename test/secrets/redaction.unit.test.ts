import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../src/secrets/redactor.js';

const KEY = 'mint_TestSecretKey0123456789abcdef';

const hex = (text: string) => Buffer.from(text).toString('hex');
const percentEncoded = (text: string) => [...Buffer.from(text)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const alternatingCase = (text: string) => [...text].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('');

/** Every way of spelling a key that the redactor must recognize, except base64 (checked by decoding). */
const SPELLINGS: Record<string, (key: string) => string> = {
  'as is': (k) => k,
  'upper case': (k) => k.toUpperCase(),
  'lower case': (k) => k.toLowerCase(),
  'mixed case': alternatingCase,
  'spaced out': (k) => [...k].join(' '),
  'spaced out, upper case': (k) => [...k.toUpperCase()].join(' '),
  'split by separators': (k) => [...k].join(' _ '),
  'split by dashes': (k) => [...k].join('-'),
  'one character per line': (k) => [...k].join('\n'),
  'percent-encoded': percentEncoded,
  'percent-encoded, lower case': (k) => percentEncoded(k).toLowerCase(),
  'hex': hex,
  'hex, upper case': (k) => hex(k).toUpperCase(),
  'hex of the upper-cased key': (k) => hex(k.toUpperCase()),
  'hex bytes spaced': (k) => hex(k).replace(/(..)(?!$)/g, '$1 '),
  '\\x escapes': (k) => [...k].map((c) => `\\x${hex(c)}`).join(''),
  'JSON \\u escapes': (k) => JSON.stringify(k).slice(1, -1).replace(/./g, (c) => `\\u00${hex(c)}`),
  'HTML entities': (k) => [...k].map((c) => `&#${c.charCodeAt(0)};`).join(''),
};

// Each run compiles a redactor for a new key (~15 ms): enough runs to cover the spellings, few enough for a unit test.
const PROPERTY_RUNS = { numRuns: 60 };

const PREFIXES = ['', 'key ', 'Authorization: Bearer ', 'token=', '{"error":"', 'x'];
const SUFFIXES = ['', ' is invalid', '"}', '\n', ' y'];

const keys = fc
  // Real keys are long and random; at least 8 letters or digits are needed for loose spellings.
  .tuple(fc.constantFrom('mint_', 'MINT_', 'Mint_'), fc.stringMatching(/^[A-Za-z0-9]{4}[A-Za-z0-9_-]{0,40}[A-Za-z0-9]{4}$/))
  .map(([head, tail]) => `${head}${tail}`);

/** True when some base64 (standard or url-safe) run in `text`, decoded at any alignment, contains `key` in any case. */
function base64Reveals(text: string, key: string): boolean {
  const needle = key.toLowerCase();
  for (const run of text.match(/[A-Za-z0-9+/_-]{4,}/g) ?? []) {
    const standard = run.replace(/-/g, '+').replace(/_/g, '/');
    for (let start = 0; start < 4; start++) {
      const decoded = Buffer.from(standard.slice(start), 'base64').toString('latin1').toLowerCase();
      if (decoded.includes(needle)) return true;
    }
  }
  return false;
}

describe('a redactor built from the configured key', () => {
  const redact = createRedactor([KEY]);

  for (const [name, spell] of Object.entries(SPELLINGS)) {
    it(`removes the key spelled ${name}, and keeps the text around it`, () => {
      expect(redact(`before ${spell(KEY)} after`)).toBe(`before ${REDACTED} after`);
    });
  }

  it('removes base64 of any text holding the key, at each of the three alignments, in both alphabets', () => {
    for (const text of [KEY, `Bearer ${KEY}`, `${KEY}:`, `:${KEY}`, `xy${KEY}z`, `user:${KEY.toUpperCase()}`, KEY.toLowerCase()]) {
      const standard = Buffer.from(text).toString('base64');
      const urlSafe = Buffer.from(text).toString('base64url');
      // The three alignments are covered by the prefixes above; check they really differ.
      for (const encoded of [standard, urlSafe]) {
        expect(base64Reveals(encoded, KEY)).toBe(true);
        const out = redact(`Authorization: Basic ${encoded}`);
        expect(out).toContain(REDACTED);
        expect(base64Reveals(out, KEY)).toBe(false);
      }
    }
  });

  const SECRET_PART = KEY.slice('mint_'.length);
  for (const [name, spell] of Object.entries(SPELLINGS)) {
    it(`removes the key's secret part without its mint_ prefix, spelled ${name}`, () => {
      expect(redact(`before ${spell(SECRET_PART)} after`)).toBe(`before ${REDACTED} after`);
    });
  }

  it("removes base64 of any text holding the key's secret part without its prefix", () => {
    for (const text of [SECRET_PART, `Bearer ${SECRET_PART}`, `:${SECRET_PART}`, `xy${SECRET_PART.toUpperCase()}z`]) {
      for (const encoded of [Buffer.from(text).toString('base64'), Buffer.from(text).toString('base64url')]) {
        expect(base64Reveals(encoded, SECRET_PART)).toBe(true);
        expect(base64Reveals(redact(`Authorization: Basic ${encoded}`), SECRET_PART)).toBe(false);
      }
    }
  });

  it('removes a password with symbols between its letters, as written and percent-encoded as a URL holds it', () => {
    const password = 'p@ss!w0rd%Secret#42';
    const redact = createRedactor([password]);
    expect(redact(`auth ${password} end`)).toBe(`auth ${REDACTED} end`);
    expect(redact(`redis://alice:${encodeURIComponent(password)}@host`)).toBe(`redis://alice:${REDACTED}@host`);
  });

  it('removes anything shaped like a Mintlify key, in any case, even when it is not the configured one', () => {
    expect(redact('keys mint_other123 and MINT_ROTATED_456, Mint_x')).toBe(`keys mint_${REDACTED} and mint_${REDACTED}, mint_${REDACTED}`);
  });

  it('leaves text without the key unchanged, including base64 and hex of other things', () => {
    const ordinary = `GET /v1/analytics/p/visitors?limit=250 -> 503 ${Buffer.from('Bearer mintlify-is-not-a-key').toString('base64')} ${hex('hello world')}`;
    expect(redact(ordinary)).toBe(ordinary);
  });

  it('matches a short secret (under 8 letters and digits) only as written, in any case, so ordinary words survive', () => {
    const redact = createRedactor(['pw-a1']);
    expect(redact('PW-A1 and p w - a 1 and pwa1')).toBe(`${REDACTED} and p w - a 1 and pwa1`);
  });

  it('with no configured key, still removes key-shaped tokens', () => {
    expect(createRedactor([undefined, ''])(`x ${KEY} y`)).toBe(`x mint_${REDACTED} y`);
  });
});

describe('redaction, for any key and any text around it (property)', () => {
  it('no spelling of the key survives, and the text around it does', () => {
    fc.assert(
      fc.property(keys, fc.constantFrom(...Object.keys(SPELLINGS)), fc.constantFrom(...PREFIXES), fc.constantFrom(...SUFFIXES), (key, spelling, prefix, suffix) => {
        const out = createRedactor([key])(`${prefix}${SPELLINGS[spelling]!(key)}${suffix}`);
        expect(out).toBe(`${prefix}${REDACTED}${suffix}`);
      }),
      PROPERTY_RUNS,
    );
  });

  it('base64 of any text holding the key never decodes back to it once redacted', () => {
    fc.assert(
      fc.property(keys, fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), fc.constantFrom<BufferEncoding>('base64', 'base64url'), fc.constantFrom('as is', 'upper', 'lower'), (key, before, after, encoding, variant) => {
        const cased = variant === 'upper' ? key.toUpperCase() : variant === 'lower' ? key.toLowerCase() : key;
        const encoded = Buffer.from(`${before}${cased}${after}`).toString(encoding);
        const out = createRedactor([key])(`data ${encoded} end`);
        expect(base64Reveals(out, key)).toBe(false);
        expect(out.startsWith('data ') && out.endsWith(' end')).toBe(true);
      }),
      PROPERTY_RUNS,
    );
  });

  it('a redacted JSON log line is still valid JSON, and its strings no longer hold the key', () => {
    fc.assert(
      fc.property(keys, fc.constantFrom(...Object.keys(SPELLINGS)), fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (key, spelling, before, after) => {
        const line = JSON.stringify({ level: 50, msg: `${before}${SPELLINGS[spelling]!(key)}${after}`, err: { stack: `Error: ${key}\n    at x` } });
        const parsed = JSON.parse(createRedactor([key])(line)) as { msg: string; err: { stack: string } };
        expect(parsed.msg.toLowerCase()).not.toContain(key.toLowerCase());
        expect(parsed.err.stack).toBe(`Error: ${REDACTED}\n    at x`);
      }),
      PROPERTY_RUNS,
    );
  });

  it('redacting twice changes nothing more', () => {
    fc.assert(
      fc.property(keys, fc.string({ maxLength: 40 }), (key, text) => {
        const redact = createRedactor([key]);
        const once = redact(`${text}${key}${text}`);
        expect(redact(once)).toBe(once);
      }),
      PROPERTY_RUNS,
    );
  });
});
