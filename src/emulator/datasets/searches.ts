/**
 * Searches: `GET searches`, one page by cursor until `nextCursor` is null (the spec's answer has
 * no `hasMore`), with `totalSearches` on every page.
 *
 * Data: `count` distinct terms of a window ordered by hits desc, then term asc (the one order the
 * spec promises), with a Zipf-like head, a click-through rate, the most clicked page (null when
 * nobody clicked) and the last time each term was searched. Knobs: half-unit hits under
 * approximate counts, `_sampleRate`; under `shuffle` only terms with equal hits change places.
 * `totalSearches` is the sum of all hits (an integer in the spec, so rounded).
 */
import type { WindowFixture } from '../analytics-dataset.js';
import { itemCountFor, type DailyItems, type ResolvedAnalyticsKnobs } from '../analytics-knobs.js';
import { cursorAnswer } from '../analytics-paging.js';
import { DocsPathSpace } from '../docs-paths.js';
import { approximation, knobKey } from '../knob-draws.js';
import { hash2, hashNumbers, hashString, seededShuffle, unitFloat } from '../seeded-random.js';
import { SEARCH_SUFFIXES, SEARCH_WORDS } from '../text-samples.js';
import type { WindowRef } from '../window-ref.js';

export interface SearchesWindow {
  searches: SearchRow[];
  totalSearches: number;
}

const DAILY: DailyItems = { perDay: [100, 300], grows: 'log' };

export const searches: WindowFixture<{ items: SearchRow[]; totals: { totalSearches: number } }> = {
  kind: 'window',
  path: 'searches',
  query: { limit: { min: 1, max: 100, default: 50, integer: false }, cursor: true },
  answer: (ctx, query, ref) => {
    const window = ctx.windows.cached('searches', ref, () => {
      const value = servedSearches(ctx.options.seed, ctx.options, ref);
      return { value, weight: value.searches.length * 8 };
    });
    return cursorAnswer(ctx, 'searches', query, ref, window.searches, (page) => ({
      searches: page.items,
      totalSearches: window.totalSearches,
      nextCursor: page.nextCursor,
    }));
  },
  truth: (options, ref) => {
    const window = servedSearches(options.seed, options, ref);
    return { items: window.searches, totals: { totalSearches: window.totalSearches } };
  },
};

const TIE_SALT = 0x71e;

function servedSearches(seed: number, knobs: ResolvedAnalyticsKnobs, ref: WindowRef): SearchesWindow {
  const count = itemCountFor(knobs, 'searches', ref, DAILY);
  const key = knobKey(seed, 'searches', ref.projectId, ref.fromMs, ref.toMs, ref.revision);
  const rows = computeSearches(seed, ref.projectId, ref.fromMs, ref.toMs, count, ref.revision).map((row, i) => {
    const served = approximation(key, i, knobs.approximateCounts) === 'exact' ? { ...row } : { ...row, hits: row.hits + 0.5 };
    if (knobs.extraFields) served._sampleRate = 1;
    return { served, tie: knobs.shuffle ? hash2(hash2(key, TIE_SALT), i) : i };
  });
  rows.sort((a, b) => b.served.hits - a.served.hits || a.tie - b.tie);
  const searches = rows.map((row) => row.served);
  return { searches, totalSearches: Math.round(searches.reduce((sum, row) => sum + row.hits, 0)) };
}

export interface SearchRow {
  searchQuery: string;
  hits: number;
  ctr: number;
  topClickedPage: string | null;
  lastSearchedAt: string;
  [extra: string]: unknown;
}

const SEARCHES_SALT = 0x5ea2c;
const DAY_MS = 86_400_000;

function computeSearches(seed: number, projectId: string, fromMs: number, toMs: number, count: number, revision: number): SearchRow[] {
  const projectKey = hashNumbers(seed, hashString(projectId));
  const key = hashNumbers(projectKey, fromMs, toMs, revision, SEARCHES_SALT);
  // A project's favourite words come first, in every window.
  const words = seededShuffle(SEARCH_WORDS, projectKey ^ 0x51);
  const pages = new DocsPathSpace(seed, projectId, 300);
  const days = Math.max(1 / 24, (toMs - fromMs) / DAY_MS);
  const top = (20 + 60 * unitFloat(hash2(key, 1))) * days ** 0.9;
  const rows: SearchRow[] = [];
  for (let i = 0; i < count; i++) {
    const k = hash2(key, i + 100);
    const draw = (n: number) => unitFloat(hash2(k, n));
    const hits = Math.max(1, Math.round(top * (i + 1) ** -0.8 * Math.exp((draw(1) - 0.5) * 0.6)));
    // Some of a project's terms find nothing anyone clicks, in every window: search gaps to triage.
    const clicked = !gapTerm(projectKey, i) && draw(2) >= 0.2;
    rows.push({
      searchQuery: term(words, i),
      hits,
      ctr: clicked ? Math.round((0.05 + 0.85 * draw(3)) * 10_000) / 10_000 : 0,
      topClickedPage: clicked ? pages.name(Math.floor(300 * draw(4) ** 2)) : null,
      lastSearchedAt: new Date(fromMs + Math.floor((0.5 + 0.5 * draw(5)) * (toMs - fromMs))).toISOString(),
    });
  }
  return rows.sort((a, b) => b.hits - a.hits || (a.searchQuery < b.searchQuery ? -1 : a.searchQuery > b.searchQuery ? 1 : 0));
}

/** Whether term number `i` of the project is never clicked (about one in twelve, not among the top three). */
function gapTerm(projectKey: number, i: number): boolean {
  return i >= 3 && unitFloat(hash2(projectKey ^ 0x6a9, i)) < 1 / 12;
}

/** Term number `i`: a word, a word with a suffix, then numbered (unique for any count). */
function term(words: readonly string[], i: number): string {
  const w = words.length;
  const s = SEARCH_SUFFIXES.length;
  const base = `${words[i % w]}${SEARCH_SUFFIXES[Math.floor(i / w) % s]}`;
  const round = Math.floor(i / (w * s));
  return round === 0 ? base : `${base} ${round + 1}`;
}
