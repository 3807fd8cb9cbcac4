/**
 * ULIDs (26 characters of Crockford base32: 48 bits of milliseconds, then 80 bits chosen by the
 * caller). The emulator builds them from hashes, never from a random source, so ids and cursors
 * are reproducible. The spec types assistant cursors and thread ids as ULIDs.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_PATTERN = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const RANDOM_BITS = 80n;
const RANDOM_MASK = (1n << RANDOM_BITS) - 1n;

/** Encodes `timeMs` (0 … 2^48-1) and an 80-bit `random` part. */
export function encodeUlid(timeMs: number, random: bigint): string {
  let value = (BigInt(Math.floor(timeMs)) << RANDOM_BITS) | (random & RANDOM_MASK);
  let text = '';
  for (let i = 0; i < 26; i++) {
    text = ALPHABET[Number(value & 31n)]! + text;
    value >>= 5n;
  }
  return text;
}

/** The two parts of a ULID, or undefined when `text` is not one (case-sensitive, upper case). */
export function decodeUlid(text: string): { timeMs: number; random: bigint } | undefined {
  if (!ULID_PATTERN.test(text)) return undefined;
  let value = 0n;
  for (const char of text) value = (value << 5n) | BigInt(ALPHABET.indexOf(char));
  return { timeMs: Number(value >> RANDOM_BITS), random: value & RANDOM_MASK };
}

export function isUlid(text: string): boolean {
  return ULID_PATTERN.test(text);
}

/**
 * A ULID from `timeMs` and 80 bits given as 16 + 32 + 32 (`high` keeps its low 16 bits): the
 * same text as `encodeUlid`, in plain numbers (BigInt per id cost ~30% of a long assistant window).
 */
export function ulidOf(timeMs: number, high: number, middle: number, low: number): string {
  const upper = (high & 0xffff) * 2 ** 24 + (middle >>> 8);
  const lower = (middle & 0xff) * 2 ** 32 + (low >>> 0);
  return base32(Math.floor(timeMs), 10) + base32(upper, 8) + base32(lower, 8);
}

function base32(value: number, digits: number): string {
  let text = '';
  for (let i = 0, rest = value; i < digits; i++, rest = Math.floor(rest / 32)) text = ALPHABET[rest % 32]! + text;
  return text;
}
