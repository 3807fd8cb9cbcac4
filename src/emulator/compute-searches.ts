/**
 * Deterministic documentation searches of one window: `count` distinct terms ordered by hits desc,
 * then term asc (the one order the spec promises), with a Zipf-like head, a click-through rate,
 * the most clicked page (null when nobody clicked) and the last time each term was searched.
 */
import { DocsPathSpace } from './docs-paths.js';
import { hash2, hashNumbers, hashString, seededShuffle, unitFloat } from './seeded-random.js';
import { SEARCH_SUFFIXES, SEARCH_WORDS } from './text-samples.js';

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

export function computeSearches(seed: number, projectId: string, fromMs: number, toMs: number, count: number, revision: number): SearchRow[] {
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
