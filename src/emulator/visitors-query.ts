/**
 * Validation of the visitors query, with the API's rules: `dateFrom`/`dateTo` required, ISO 8601
 * or YYYY-MM-DD, real calendar dates, `dateTo` (exclusive) after `dateFrom`; `limit` an integer
 * 1–250 (default 50); `offset` an integer ≥ 0 (default 0). Every problem is reported, not the first.
 */
import { parseApiDate } from './api-date.js';

export const MAX_LIMIT = 250;
export const DEFAULT_LIMIT = 50;

export interface VisitorsQuery {
  dateFrom: string;
  dateTo: string;
  fromMs: number;
  toMs: number;
  limit: number;
  offset: number;
}

export type VisitorsQueryResult = { ok: true; query: VisitorsQuery } | { ok: false; details: string[] };

export function parseVisitorsQuery(raw: Record<string, unknown>): VisitorsQueryResult {
  const details: string[] = [];
  const dateFrom = dateParam(raw, 'dateFrom', details);
  const dateTo = dateParam(raw, 'dateTo', details);
  if (dateFrom && dateTo && dateTo.ms <= dateFrom.ms) details.push('dateTo must be after dateFrom (dateTo is exclusive)');
  const limit = integerParam(raw, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT, details);
  const offset = integerParam(raw, 'offset', 0, 0, Number.MAX_SAFE_INTEGER, details);
  if (details.length > 0 || !dateFrom || !dateTo || limit === undefined || offset === undefined) return { ok: false, details };
  return {
    ok: true,
    query: { dateFrom: dateFrom.text, dateTo: dateTo.text, fromMs: dateFrom.ms, toMs: dateTo.ms, limit, offset },
  };
}

function dateParam(raw: Record<string, unknown>, name: string, details: string[]): { text: string; ms: number } | undefined {
  const value = raw[name];
  if (value === undefined || value === '') {
    details.push(`${name} is required`);
    return undefined;
  }
  const ms = typeof value === 'string' ? parseApiDate(value) : undefined;
  if (ms === undefined) {
    details.push(`${name} must be a real date in ISO 8601 or YYYY-MM-DD format`);
    return undefined;
  }
  return { text: value as string, ms };
}

function integerParam(
  raw: Record<string, unknown>,
  name: string,
  fallback: number,
  min: number,
  max: number,
  details: string[],
): number | undefined {
  const value = raw[name];
  if (value === undefined) return fallback;
  const number = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    details.push(max === Number.MAX_SAFE_INTEGER ? `${name} must be an integer ≥ ${min}` : `${name} must be an integer from ${min} to ${max}`);
    return undefined;
  }
  return number;
}
