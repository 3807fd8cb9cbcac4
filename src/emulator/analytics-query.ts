/**
 * Validation of the analytics queries, with the spec's rules. Dates are optional: ISO 8601 or
 * YYYY-MM-DD, real calendar dates, `dateTo` exclusive and after `dateFrom`, at most 366 days
 * apart. When absent, the window is the 30 days before today (UTC): `dateTo` defaults to today's
 * midnight, `dateFrom` to 30 days before `dateTo`. `limit` ranges per endpoint (each fixture's
 * QuerySpec); where the spec types it `number` a decimal is accepted and rounded down, where
 * `integer` it must be whole. `offset` an integer ≥ 0; `source` one
 * of the four feedback sources; `status` a comma list of feedback statuses. Every problem is
 * reported, not the first.
 */
import { parseApiDate } from './api-date.js';

const DAY_MS = 86_400_000;
/** The window a request without dates gets: this many days before today. */
export const DEFAULT_WINDOW_DAYS = 30;
/**
 * The longest window answered: computing a window costs time and memory in proportion to its
 * days, so `0001-01-01..9999-12-31` would block the emulator. Beyond it, a 400 with a detail.
 */
export const MAX_WINDOW_DAYS = 366;

export const FEEDBACK_SOURCES = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;
export type FeedbackSource = (typeof FEEDBACK_SOURCES)[number];
export const FEEDBACK_STATUSES = ['pending', 'in_progress', 'resolved', 'dismissed'] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

/** Which parameters an endpoint takes. */
export interface QuerySpec {
  limit?: { min: number; max: number; default: number; integer: boolean };
  offset?: boolean;
  cursor?: boolean;
  /** `source` and `status` (feedback endpoints). */
  feedbackFilters?: boolean;
}

export interface FeedbackFilters {
  source?: FeedbackSource;
  /** Sorted, without duplicates; undefined when not filtering. */
  statuses?: FeedbackStatus[];
}

export interface AnalyticsQuery {
  /** The dates as sent, or the defaults written as YYYY-MM-DD. */
  dateFrom: string;
  dateTo: string;
  fromMs: number;
  toMs: number;
  limit: number;
  offset: number;
  cursor: string | undefined;
  filters: FeedbackFilters;
}

export type AnalyticsQueryResult = { ok: true; query: AnalyticsQuery } | { ok: false; details: string[] };

export function parseAnalyticsQuery(raw: Record<string, unknown>, spec: QuerySpec, nowMs: number): AnalyticsQueryResult {
  const details: string[] = [];
  const dateFrom = dateParam(raw, 'dateFrom', details);
  const dateTo = dateParam(raw, 'dateTo', details);
  const window = dateFrom !== null && dateTo !== null ? defaultWindow(dateFrom, dateTo, nowMs) : undefined;
  if (window && window.to.ms <= window.from.ms) details.push('dateTo must be after dateFrom (dateTo is exclusive)');
  if (window && window.to.ms - window.from.ms > MAX_WINDOW_DAYS * DAY_MS) details.push(`the window from dateFrom to dateTo spans more than ${MAX_WINDOW_DAYS} days`);
  const limit = spec.limit
    ? numberParam(raw, 'limit', spec.limit.default, spec.limit.min, spec.limit.max, spec.limit.integer, details)
    : 0;
  const offset = spec.offset ? numberParam(raw, 'offset', 0, 0, Number.MAX_SAFE_INTEGER, true, details) : 0;
  const cursor = spec.cursor ? cursorParam(raw, details) : undefined;
  const filters = spec.feedbackFilters ? feedbackFilters(raw, details) : {};
  if (details.length > 0 || !window || limit === undefined || offset === undefined) return { ok: false, details };
  return {
    ok: true,
    query: { dateFrom: window.from.text, dateTo: window.to.text, fromMs: window.from.ms, toMs: window.to.ms, limit, offset, cursor, filters },
  };
}

/** The filters as one canonical text, for cursor checks (empty when none). */
export function filterKey(filters: FeedbackFilters): string {
  return `${filters.source ?? ''}|${(filters.statuses ?? []).join(',')}`;
}

interface DateValue {
  text: string;
  ms: number;
}

/** A date sent, undefined when absent, null when malformed (already reported). */
function dateParam(raw: Record<string, unknown>, name: string, details: string[]): DateValue | undefined | null {
  const value = raw[name];
  if (value === undefined || value === '') return undefined;
  const ms = typeof value === 'string' ? parseApiDate(value) : undefined;
  if (ms === undefined) {
    details.push(`${name} must be a real date in ISO 8601 or YYYY-MM-DD format`);
    return null;
  }
  return { text: value as string, ms };
}

function defaultWindow(from: DateValue | undefined, to: DateValue | undefined, nowMs: number): { from: DateValue; to: DateValue } {
  const end = to ?? dayValue(Math.floor(nowMs / DAY_MS) * DAY_MS);
  return { from: from ?? dayValue(end.ms - DEFAULT_WINDOW_DAYS * DAY_MS), to: end };
}

function dayValue(ms: number): DateValue {
  return { text: new Date(ms).toISOString().slice(0, 10), ms };
}

function numberParam(
  raw: Record<string, unknown>,
  name: string,
  fallback: number,
  min: number,
  max: number,
  integer: boolean,
  details: string[],
): number | undefined {
  const value = raw[name];
  if (value === undefined) return fallback;
  const pattern = integer ? /^\d{1,16}$/ : /^\d{1,16}(\.\d{1,16})?$/;
  const number = typeof value === 'string' && pattern.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(number) || number < min || number > max) {
    const kind = integer ? 'an integer' : 'a number';
    details.push(max === Number.MAX_SAFE_INTEGER ? `${name} must be ${kind} ≥ ${min}` : `${name} must be ${kind} from ${min} to ${max}`);
    return undefined;
  }
  return Math.floor(number);
}

function cursorParam(raw: Record<string, unknown>, details: string[]): string | undefined {
  const value = raw.cursor;
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') {
    details.push('cursor must be a single string');
    return undefined;
  }
  return value;
}

function feedbackFilters(raw: Record<string, unknown>, details: string[]): FeedbackFilters {
  const filters: FeedbackFilters = {};
  const source = raw.source;
  if (source !== undefined && source !== '') {
    if (typeof source === 'string' && (FEEDBACK_SOURCES as readonly string[]).includes(source)) filters.source = source as FeedbackSource;
    else details.push(`source must be one of ${FEEDBACK_SOURCES.join(', ')}`);
  }
  const status = raw.status;
  if (status !== undefined && status !== '') {
    const values = typeof status === 'string' ? status.split(',').map((s) => s.trim()).filter((s) => s !== '') : [];
    const unknown = values.filter((s) => !(FEEDBACK_STATUSES as readonly string[]).includes(s));
    if (typeof status !== 'string' || unknown.length > 0) {
      details.push(`status must be a comma-separated list of ${FEEDBACK_STATUSES.join(', ')}`);
    } else if (values.length > 0) {
      filters.statuses = [...new Set(values as FeedbackStatus[])].sort();
    }
  }
  return filters;
}
