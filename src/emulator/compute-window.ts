/**
 * Deterministic synthetic visitor analytics for one date window: the ground truth the emulator
 * pages through, and that tests recompute to check a whole export.
 *
 * The model, in short: page `i` of a project gets uniques ∝ (i+1)^-0.9 (a Zipf-like long tail),
 * scaled by the window's length to the power 0.75 (uniques grow slower than days: the same people
 * come back), with per-window noise. Each row splits into human and AI visitors with an overlap,
 * so `max(human, ai) ≤ total ≤ human + ai` and usually `total < human + ai`. Site-wide totals
 * deduplicate across pages (visitors read several pages), so they are far below the sum of rows
 * and obey the same invariant. Windows are computed independently: a week is not the sum of its days.
 *
 * Page views (`measure: 'views'`) are events, not people: the same pages with their own per-window
 * draws, counts growing linearly with days, agents viewing more pages per visit, `total = human + ai`
 * on every row and window totals that are the sums of the rows.
 */
import { parseApiDate } from './api-date.js';
import { DocsPathSpace } from './docs-paths.js';
import { hash2, hashNumbers, hashString, unitFloat } from './seeded-random.js';

/** One row of the visitors endpoint. */
export interface VisitorRow {
  path: string;
  human: number;
  ai: number;
  /** Unique visitors, deduplicated across human and AI. */
  total: number;
}

/** Site-wide uniques of a window (deduplicated across pages, so not the sum of the rows). */
export interface SiteTotals {
  human: number;
  ai: number;
  total: number;
}

/** A whole window: its totals and every row, sorted by `total` desc, then `path` asc. */
export interface AnalyticsWindow {
  totals: SiteTotals;
  visitors: VisitorRow[];
}

const DAY_MS = 86_400_000;
const ZIPF_EXPONENT = 0.9;
/** Uniques of a project's top page on an average day (before the per-project scale). */
const TOP_PAGE_DAILY_UNIQUES = 8000;
/** Window uniques grow as days^0.75: a week is ~4.3 days' worth, not 7. */
const DAYS_EXPONENT = 0.75;
/** Paths per window when the project id does not say: roughly 1200 × (1 + ln(days)). */
const BASE_PATHS_PER_WINDOW = 1200;
/** Views of a project's top page on an average day (before the per-project scale). */
const TOP_PAGE_DAILY_VIEWS = 14_000;
/** Salt of the views measure, so its draws do not repeat the visitors draws. */
const VIEWS_SALT = 0x71e35;

/** What a traffic window counts: unique visitors or view events. */
export type TrafficMeasure = 'visitors' | 'views';

/** Guards memory: a window holds every row of itself in the cache. */
export const MAX_PATHS_PER_WINDOW = 5_000_000;

/**
 * The default number of paths of a window: the number at the end of a project id like
 * `bench-100000` (that many), otherwise about 1200 × (1 + ln(days)).
 */
export function defaultPathCount(projectId: string, dateFrom: string, dateTo: string): number {
  const explicit = /-(\d+)$/.exec(projectId);
  if (explicit) return Math.min(Number(explicit[1]), MAX_PATHS_PER_WINDOW);
  const days = Math.max(1, windowDays(parseOrThrow('dateFrom', dateFrom), parseOrThrow('dateTo', dateTo)));
  return Math.round(BASE_PATHS_PER_WINDOW * (1 + Math.log(days)));
}

/**
 * Computes a whole window. Pure: the same arguments always give the same rows, whatever the date
 * spelling (`2026-01-01` and `2026-01-01T00:00:00Z` are the same window).
 *
 * @param seed the emulator's seed
 * @param dateFrom inclusive start, ISO 8601 or YYYY-MM-DD
 * @param dateTo exclusive end, after `dateFrom`
 * @param pathCount rows in the window; @default defaultPathCount(projectId, dateFrom, dateTo)
 * @param revision the project's data revision (bumped by `control.mutate`); @default 0
 * @throws RangeError when a date is invalid or `dateTo` is not after `dateFrom`
 */
export function computeWindow(
  seed: number,
  projectId: string,
  dateFrom: string,
  dateTo: string,
  pathCount?: number,
  revision = 0,
): AnalyticsWindow {
  const fromMs = parseOrThrow('dateFrom', dateFrom);
  const toMs = parseOrThrow('dateTo', dateTo);
  if (toMs <= fromMs) throw new RangeError('dateTo must be after dateFrom');
  const count = pathCount ?? defaultPathCount(projectId, dateFrom, dateTo);
  if (!Number.isSafeInteger(count) || count < 0 || count > MAX_PATHS_PER_WINDOW) {
    throw new RangeError(`pathCount must be an integer from 0 to ${MAX_PATHS_PER_WINDOW}`);
  }
  const window = computeCompactWindow(seed, projectId, fromMs, toMs, count, revision);
  return { totals: window.totals, visitors: window.rows(0, window.size) };
}

/**
 * A computed window in compact form: counts in typed arrays, names made only for the rows served.
 * The emulator caches these; a million-path window takes ~16 MB instead of ~150 MB of row objects.
 */
export class CompactWindow {
  constructor(
    readonly totals: SiteTotals,
    /** Path numbers in serving order (total desc, path asc). */
    private readonly order: Uint32Array,
    private readonly human: Int32Array,
    private readonly ai: Int32Array,
    private readonly total: Int32Array,
    private readonly paths: DocsPathSpace,
  ) {}

  get size(): number {
    return this.order.length;
  }

  /** Path number of the row at serving position `position` (draws per path key on it). */
  pathNumber(position: number): number {
    return this.order[position]!;
  }

  /** The row at serving position `position`. */
  rowAt(position: number): VisitorRow {
    const i = this.order[position]!;
    return { path: this.paths.name(i), human: this.human[i]!, ai: this.ai[i]!, total: this.total[i]! };
  }

  /** Rows `offset` … `offset + limit - 1` in serving order (fewer at the end). */
  rows(offset: number, limit: number): VisitorRow[] {
    const end = Math.min(this.order.length, offset + limit);
    const rows: VisitorRow[] = [];
    for (let r = offset; r < end; r++) {
      const i = this.order[r]!;
      rows.push({ path: this.paths.name(i), human: this.human[i]!, ai: this.ai[i]!, total: this.total[i]! });
    }
    return rows;
  }
}

/** Like `computeWindow`, but compact; the arguments are already validated and parsed. */
export function computeCompactWindow(
  seed: number,
  projectId: string,
  fromMs: number,
  toMs: number,
  count: number,
  revision: number,
  measure: TrafficMeasure = 'visitors',
): CompactWindow {
  const views = measure === 'views';
  const projectKey = hashNumbers(seed, hashString(projectId));
  const windowKey = views ? hashNumbers(projectKey, fromMs, toMs, revision, VIEWS_SALT) : hashNumbers(projectKey, fromMs, toMs, revision);
  // A project's size and its window's mood: both shift every number of the window together.
  const projectScale = 0.5 + 1.5 * unitFloat(hash2(projectKey, 1));
  const windowNoise = Math.exp((unitFloat(hash2(windowKey, 1)) - 0.5) * 0.1);
  const days = windowDays(fromMs, toMs);
  const top = views
    ? TOP_PAGE_DAILY_VIEWS * projectScale * days * windowNoise
    : TOP_PAGE_DAILY_UNIQUES * projectScale * days ** DAYS_EXPONENT * windowNoise;

  const human = new Int32Array(count);
  const ai = new Int32Array(count);
  const total = new Int32Array(count);
  const sums = { human: 0, ai: 0, maxHuman: 0, maxAi: 0, maxTotal: 0 };

  for (let i = 0; i < count; i++) {
    const pathKey = hash2(windowKey, i);
    const popularity = Math.exp((unitFloat(hash2(pathKey, 11)) - 0.5) * 0.7);
    const expected = top * (i + 1) ** -ZIPF_EXPONENT * popularity;
    // A page's AI share is a trait of the page (API references draw agents), jittered per window.
    const baseShare = 0.1 + 0.5 * unitFloat(hash2(projectKey, i + 7)) ** 2;
    const aiShare = Math.min(0.95, baseShare * Math.exp((unitFloat(hash2(pathKey, 12)) - 0.5) * 0.4));
    let h = Math.round(expected * (1 - aiShare));
    let a = Math.round(expected * aiShare * (views ? 1.5 : 1));
    if (h + a === 0) {
      if (aiShare > 0.5) a = 1;
      else h = 1;
    }
    // Some visitors show up as both (an agent session and a browser sharing one visitor id).
    const overlap = views ? 0 : Math.round(Math.min(h, a) * (0.1 + 0.5 * unitFloat(hash2(pathKey, 13))));
    const t = h + a - overlap;
    human[i] = h;
    ai[i] = a;
    total[i] = t;
    sums.human += h;
    sums.ai += a;
    if (h > sums.maxHuman) sums.maxHuman = h;
    if (a > sums.maxAi) sums.maxAi = a;
    if (t > sums.maxTotal) sums.maxTotal = t;
  }

  const paths = new DocsPathSpace(seed, projectId, count);
  const totals = views ? { human: sums.human, ai: sums.ai, total: sums.human + sums.ai } : siteTotals(windowKey, sums);
  return new CompactWindow(totals, servingOrder(total, sums.maxTotal, paths), human, ai, total, paths);
}

/** Path numbers sorted by total desc, then path asc: one numeric sort on combined keys when they fit. */
function servingOrder(total: Int32Array, maxTotal: number, paths: DocsPathSpace): Uint32Array {
  const count = total.length;
  const order = new Uint32Array(count);
  if ((maxTotal + 1) * paths.keySpace <= Number.MAX_SAFE_INTEGER) {
    const keys = new Float64Array(count);
    for (let i = 0; i < count; i++) keys[i] = (maxTotal - total[i]!) * paths.keySpace + paths.key(i);
    keys.sort();
    for (let r = 0; r < count; r++) order[r] = paths.indexOf(keys[r]! % paths.keySpace);
    return order;
  }
  const pathKeys = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    order[i] = i;
    pathKeys[i] = paths.key(i);
  }
  return order.sort((x, y) => total[y]! - total[x]! || pathKeys[x]! - pathKeys[y]!);
}

function siteTotals(
  windowKey: number,
  sums: { human: number; ai: number; maxHuman: number; maxAi: number; maxTotal: number },
): SiteTotals {
  // Readers of several pages count once site-wide; agents crawl more pages per visit than people.
  const humanDedup = 0.62 * Math.exp((unitFloat(hash2(windowKey, 21)) - 0.5) * 0.1);
  const aiDedup = 0.5 * Math.exp((unitFloat(hash2(windowKey, 22)) - 0.5) * 0.1);
  const human = Math.max(sums.maxHuman, Math.round(sums.human * humanDedup));
  const ai = Math.max(sums.maxAi, Math.round(sums.ai * aiDedup));
  const overlap = Math.floor(Math.min(human, ai) * (0.04 + 0.08 * unitFloat(hash2(windowKey, 23))));
  // The busiest page's uniques are a floor for the site's; it fits: maxTotal ≤ maxHuman + maxAi.
  const total = Math.max(human + ai - overlap, sums.maxTotal);
  return { human, ai, total };
}

function windowDays(fromMs: number, toMs: number): number {
  return (toMs - fromMs) / DAY_MS;
}

function parseOrThrow(name: string, text: string): number {
  const ms = parseApiDate(text);
  if (ms === undefined) throw new RangeError(`${name} must be an ISO 8601 date or YYYY-MM-DD: ${text}`);
  return ms;
}
