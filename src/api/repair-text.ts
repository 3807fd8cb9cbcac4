/**
 * Text that is not valid Unicode (a lone UTF-16 surrogate, which JSON can carry as `\ud800`) is
 * replaced with U+FFFD rather than refused: one bad string must neither block its window forever
 * nor be retried into the request budget. The JSON paths of the strings repaired are reported.
 */

/** A JSON escape of a surrogate code unit; without one, the parsed text cannot hold a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The text with every lone surrogate replaced by U+FFFD (String#toWellFormed, which Node 20 has but ES2023 typings lack). */
export function toWellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

function isWellFormed(text: string): boolean {
  LONE_SURROGATE.lastIndex = 0;
  return !LONE_SURROGATE.test(text);
}

export interface ParsedJson {
  value: unknown;
  /** JSON paths (e.g. `visitors[3].path`) of strings whose invalid text was replaced. */
  repaired: string[];
}

/** JSON.parse, repairing ill-formed strings (and keys) on the way. Throws SyntaxError like JSON.parse. */
export function parseJsonRepairingText(text: string): ParsedJson {
  const value: unknown = JSON.parse(text);
  if (!SURROGATE_ESCAPE.test(text)) return { value, repaired: [] };
  const repaired: string[] = [];
  return { value: repair(value, '', repaired), repaired };
}

function repair(value: unknown, path: string, repaired: string[]): unknown {
  if (typeof value === 'string') {
    if (isWellFormed(value)) return value;
    repaired.push(path || '(body)');
    return toWellFormed(value);
  }
  if (Array.isArray(value)) return value.map((item, i) => repair(item, `${path}[${i}]`, repaired));
  if (value !== null && typeof value === 'object') {
    // Without a prototype, a `__proto__` key stays an own field (as JSON.parse makes it) instead of
    // becoming the object's prototype, whose fields every reader would then inherit.
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [key, item] of Object.entries(value)) {
      const goodKey = isWellFormed(key) ? key : toWellFormed(key);
      out[goodKey] = repair(item, path ? `${path}.${goodKey}` : goodKey, repaired);
    }
    return out;
  }
  return value;
}
