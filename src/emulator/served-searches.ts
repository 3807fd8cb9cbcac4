/**
 * Searches as served: the computed terms with the knobs applied (half-unit hits under approximate
 * counts, `_sampleRate`), still by hits desc as the spec promises (under `shuffle` only terms with
 * equal hits change places), and `totalSearches`, the sum of all hits (an integer in the spec,
 * so rounded when hits are not whole).
 */
import type { ResolvedAnalyticsKnobs } from './analytics-knobs.js';
import { itemCountFor } from './analytics-knobs.js';
import { computeSearches, type SearchRow } from './compute-searches.js';
import { approximation, knobKey } from './knob-draws.js';
import { hash2 } from './seeded-random.js';
import type { WindowRef } from './window-ref.js';

export interface SearchesWindow {
  searches: SearchRow[];
  totalSearches: number;
}

const TIE_SALT = 0x71e;

export function servedSearches(seed: number, knobs: ResolvedAnalyticsKnobs, ref: WindowRef): SearchesWindow {
  const count = itemCountFor(knobs, 'searches', ref.projectId, ref.dateFrom, ref.dateTo);
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
