/**
 * The ways an upstream or a library may echo an API key, for tests that check it never comes out:
 * every one of these must be absent from whatever mintpipe prints, stores or logs.
 */
const hex = (text: string) => Buffer.from(text).toString('hex');

export function keySpellings(key: string): Record<string, string> {
  return {
    'as is': key,
    'upper case': key.toUpperCase(),
    'lower case': key.toLowerCase(),
    'mixed case': [...key].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join(''),
    'spaced out': [...key].join(' '),
    'split by separators': [...key].join(' _ '),
    'one character per line': [...key].join('\n'),
    'percent-encoded': [...Buffer.from(key)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
    'hex': hex(key),
    'JSON \\u escapes': [...key].map((c) => `\\u00${hex(c)}`).join(''),
    'base64': Buffer.from(key).toString('base64'),
    'base64 of "Bearer <key>"': Buffer.from(`Bearer ${key}`).toString('base64'),
    'url-safe base64 of "<key>:"': Buffer.from(`${key}:`).toString('base64url'),
    'base64 of "x<KEY>"': Buffer.from(`x${key.toUpperCase()}`).toString('base64'),
  };
}

/** True when `text` holds the key in any of the spellings above, or decodes (base64, any alignment) back to it. */
export function revealsKey(text: string, key: string): boolean {
  const lower = text.toLowerCase();
  if (Object.values(keySpellings(key)).some((spelling) => lower.includes(spelling.toLowerCase()))) return true;
  const needle = key.toLowerCase();
  for (const run of text.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []) {
    const standard = run.replace(/-/g, '+').replace(/_/g, '/');
    for (let start = 0; start < 4; start++) {
      if (Buffer.from(standard.slice(start), 'base64').toString('latin1').toLowerCase().includes(needle)) return true;
    }
  }
  return false;
}
