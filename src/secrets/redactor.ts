/**
 * A redactor removes given secrets from text in whatever form an upstream or a library may echo
 * them: any letter case; spaced out or split by separators (`m i n t _ …`, one per line);
 * characters percent-encoded (`%6D%69…`), hex (`6d696e…`), `\xNN` / `\u00NN` / `&#NN;` escaped;
 * and base64 (standard or url-safe) of any text that contains the secret, at any offset. On top of
 * the configured values it removes anything shaped like a Mintlify admin key (`mint_…`, any case),
 * so a key nobody configured here (a neighbour's, a rotated one) is not printed either. A key's
 * secret part (after `mint_`) is removed on its own too, in the same forms.
 */

/** What a secret's occurrence becomes. Contains no character a secret's pattern can match again. */
export const REDACTED = '[REDACTED]';

/** Anything shaped like a Mintlify admin key, in any case. */
const KEY_SHAPED = /mint_[A-Za-z0-9_-]+/gi;

export type Redactor = (text: string) => string;

/**
 * Below this many letters and digits a secret is matched only as written (any case): spelled
 * loosely, a short value would also match ordinary words.
 */
const MIN_SPELLED_LENGTH = 8;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** How one byte may be escaped: `%6d`, `\x6d`, `\u006d` (each maybe escaped again by JSON), `&#x6d;`, or bare hex. */
const ESCAPE_PREFIX = String.raw`(?:%|\\{1,2}x|\\{1,2}u00|&#[xX])?`;

function hexPattern(code: number): string {
  return code.toString(16).padStart(2, '0').replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
}

/** One character, in either case, as itself or escaped. Escapes first: at the secret's last character the literal would stop one short of its hex pair ('3' in `33`). */
function characterPattern(char: string): string {
  const forms = [...new Set([char.toLowerCase(), char.toUpperCase()])];
  const codes = forms.map((c) => c.codePointAt(0)!);
  const literal = forms.length > 1 ? `[${forms.join('')}]` : escapeRegExp(char);
  return `(?:${ESCAPE_PREFIX}(?:${codes.map(hexPattern).join('|')});?|&#(?:${codes.join('|')});|${literal})`;
}

/**
 * What may sit between two letters or digits of a secret: nothing, or any run of separators,
 * whitespace and JSON-escaped newlines and tabs (a log line is JSON). So `m i n t _ …` and one
 * character per line match. Each step consumes a fixed token, so backtracking stays short; quotes
 * and lone backslashes are excluded, so a match never spans two JSON strings and redacting a log
 * line keeps it valid JSON.
 */
const GAP = String.raw`(?:[\s._:|/,;+*~-]|\\[nrt])*`;

/** A gap where the secret itself has a `_` or `-`, which an echo may also have escaped (`%5F`, hex `5f`). */
const GAP_WITH_SEPARATOR_ITEMS = String.raw`[\s._:|/,;+*~-]|\\[nrt]|${ESCAPE_PREFIX}(?:5[fF]|2[dD]);?|&#(?:95|45);`;

/**
 * The gap where the secret has other characters between two letters or digits (a password's `@`,
 * `!`, `%`): those characters too, as written or escaped (a URL percent-encodes them).
 */
function gapHolding(skipped: string[]): string {
  const own = [...new Set(skipped)].filter((c) => !/[\s._:|/,;+*~-]/.test(c)).map(characterPattern);
  return `(?:${[GAP_WITH_SEPARATOR_ITEMS, ...own].join('|')})*`;
}

const GAP_WITH_SEPARATOR = gapHolding([]);

/**
 * The secret's letters and digits joined by gaps; separators it starts or ends with are optional
 * (an echo may drop them) but removed when present.
 */
function spelledPattern(secret: string): string {
  const chars = [...secret];
  const isSignificant = (c: string) => /[A-Za-z0-9]/.test(c);
  const significant = chars.filter(isSignificant);
  if (significant.length < MIN_SPELLED_LENGTH) return chars.map((c) => (/[A-Za-z]/.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escapeRegExp(c))).join('');
  const first = chars.findIndex(isSignificant);
  const last = chars.length - 1 - [...chars].reverse().findIndex(isSignificant);
  const head = chars.slice(0, first).map(characterPattern).join(GAP);
  const tail = chars.slice(last + 1).map(characterPattern).join(GAP);
  // Where the secret has a separator between two letters or digits, the gap may hold it escaped.
  let pattern = '';
  let previous = -1;
  chars.forEach((c, index) => {
    if (!isSignificant(c) || index < first || index > last) return;
    if (previous >= 0) pattern += index - previous > 1 ? gapHolding(chars.slice(previous + 1, index)) : GAP;
    pattern += characterPattern(c);
    previous = index;
  });
  return `${head ? `(?:${head}${GAP_WITH_SEPARATOR})?` : ''}${pattern}${tail ? `(?:${GAP_WITH_SEPARATOR}${tail})?` : ''}`;
}

/**
 * The part of base64(prefix + secret + suffix) that depends only on the secret, for a prefix of
 * `offset` bytes (0, 1 or 2: base64 encodes 3 bytes as 4 characters, so any offset is one of
 * these). The first and last characters also carry bits of the unknown neighbours: dropped.
 */
function base64Fragment(secret: Buffer, offset: 0 | 1 | 2): string {
  const padded = Buffer.concat([Buffer.alloc(offset), secret]);
  const encoded = padded.toString('base64').replace(/=+$/, '');
  const skip = [0, 2, 3][offset]!;
  const whole = Math.floor(padded.length / 3) * 4;
  const tail = [0, 1, 2][padded.length % 3]!;
  return encoded.slice(skip, whole + tail);
}

function base64Patterns(secret: string): string[] {
  const patterns: string[] = [];
  for (const variant of new Set([secret, secret.toLowerCase(), secret.toUpperCase()])) {
    for (const offset of [0, 1, 2] as const) {
      const standard = base64Fragment(Buffer.from(variant, 'utf8'), offset);
      if (standard.length < 4) continue;
      for (const alphabet of [standard, standard.replace(/\+/g, '-').replace(/\//g, '_')]) {
        // A JSON encoder may escape `/` as `\/` (and a log line escapes that backslash again).
        patterns.push(alphabet.split('').map((c) => (c === '/' ? String.raw`\\{0,2}/` : escapeRegExp(c))).join(''));
      }
    }
  }
  return [...new Set(patterns)];
}

/**
 * A key's secret part (the text after `mint_`): an upstream that echoes the key may drop the
 * prefix, and what is left is all an attacker needs. Undefined for other secrets.
 */
function secretPart(secret: string): string | undefined {
  const match = /^mint_(.+)$/i.exec(secret);
  return match?.[1];
}

/**
 * Builds a redactor for the given secrets (undefined and empty ones are ignored). Build it once:
 * the patterns are compiled here, and applying it is a few regex passes.
 */
export function createRedactor(secrets: Iterable<string | undefined>): Redactor {
  const given = [...secrets].filter((s): s is string => typeof s === 'string' && s.length > 0);
  const values = [...new Set([...given, ...given.map(secretPart).filter((s): s is string => s !== undefined)])];
  // Longest first, so a secret that contains another is removed whole.
  values.sort((a, b) => b.length - a.length);
  const spelled = values.map(spelledPattern);
  const encoded = values.filter((v) => v.replace(/[^A-Za-z0-9]/g, '').length >= MIN_SPELLED_LENGTH).flatMap(base64Patterns);
  // Case is spelled out in the patterns: the `i` flag makes V8 compile and run them several times slower.
  const spelledRegExp = spelled.length > 0 ? new RegExp(spelled.join('|'), 'g') : undefined;
  const encodedRegExp = encoded.length > 0 ? new RegExp(encoded.join('|'), 'g') : undefined;
  return (text: string): string => {
    let out = text;
    if (spelledRegExp) out = out.replace(spelledRegExp, REDACTED);
    if (encodedRegExp) out = out.replace(encodedRegExp, REDACTED);
    return out.replace(KEY_SHAPED, `mint_${REDACTED}`);
  };
}
