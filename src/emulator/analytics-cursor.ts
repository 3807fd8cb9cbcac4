/**
 * Opaque pagination cursors, stateless and checkable: a ULID whose time part is the moment the
 * cursor was issued and whose 80 random bits hold the position of the next row (24 bits) and a
 * 56-bit check over everything the cursor belongs to (seed, dataset, project, window, filters,
 * position, issue time). A cursor from another window, filter, dataset or emulator seed, or an
 * edited one, fails the check (400); with `cursorTtlMs`, so does an old one. The position counts
 * rows in serving order, so a cursor survives a change of `limit` between pages.
 */
import { hash2, hashNumbers, hashString } from './seeded-random.js';
import { decodeUlid, encodeUlid } from './ulid.js';

/** What a cursor is valid for. `filter` is a canonical text of the filters (empty when none). */
export interface CursorScope {
  seed: number;
  dataset: string;
  projectId: string;
  fromMs: number;
  toMs: number;
  filter: string;
}

const POSITION_BITS = 24n;
export const MAX_CURSOR_POSITION = 2 ** 24 - 1;
const CURSOR_SALT = 0xc0750e;

export function encodeCursor(scope: CursorScope, position: number, issuedAtMs: number): string {
  if (!Number.isInteger(position) || position < 0 || position > MAX_CURSOR_POSITION) {
    throw new RangeError(`cursor position out of range: ${position}`);
  }
  return encodeUlid(issuedAtMs, (check(scope, position, issuedAtMs) << POSITION_BITS) | BigInt(position));
}

export type CursorDecision = { ok: true; position: number } | { ok: false; problem: string };

/** Checks a cursor against the request it came with; `ttlMs` null means cursors never expire. */
export function decodeCursor(scope: CursorScope, text: string, nowMs: number, ttlMs: number | null): CursorDecision {
  const parts = decodeUlid(text);
  if (!parts) return { ok: false, problem: 'cursor is not a cursor this endpoint issued' };
  const position = Number(parts.random & BigInt(MAX_CURSOR_POSITION));
  if (parts.random >> POSITION_BITS !== check(scope, position, parts.timeMs)) {
    return { ok: false, problem: 'cursor does not belong to this query (project, dates, filters) or was altered' };
  }
  if (ttlMs !== null && nowMs - parts.timeMs > ttlMs) return { ok: false, problem: 'cursor has expired; start again without a cursor' };
  return { ok: true, position };
}

function check(scope: CursorScope, position: number, issuedAtMs: number): bigint {
  const key = hashNumbers(
    CURSOR_SALT,
    scope.seed,
    hashString(scope.dataset),
    hashString(scope.projectId),
    scope.fromMs,
    scope.toMs,
    hashString(scope.filter),
    position,
    issuedAtMs,
  );
  return (BigInt(hash2(key, 1)) << 24n) | BigInt(hash2(key, 2) >>> 8);
}
