/**
 * Assistant caller stats: `GET assistant/caller-stats`, one call per window: the window's
 * assistant turns counted by caller type. Knobs: half-units under approximate counts (the spec
 * sets no bounds between the four), `_sampleRate`.
 */
import type { WindowFixture } from '../analytics-dataset.js';
import type { ResolvedAnalyticsKnobs } from '../analytics-knobs.js';
import { approximation } from '../knob-draws.js';
import { cachedAssistant, servedAssistant, type AssistantWindow } from './assistant.js';

export interface CallerStats {
  web: number;
  api: number;
  other: number;
  total: number;
  [extra: string]: unknown;
}

/** Which draw of the caller stats (rows use their index, ≥ 0). */
const CALLER_STATS_ITEM = -1;

export const assistantCallerStats: WindowFixture<{ items: []; totals: CallerStats }> = {
  kind: 'window',
  path: 'assistant/caller-stats',
  query: {},
  answer: (ctx, _query, ref) => ({ status: 200, body: callerStats(ctx.options, cachedAssistant(ctx, ref)) }),
  truth: (options, ref) => ({ items: [], totals: callerStats(options, servedAssistant(options.seed, options, ref)) }),
};

function callerStats(knobs: ResolvedAnalyticsKnobs, { key, turns }: AssistantWindow): CallerStats {
  const stats: CallerStats = { web: 0, api: 0, other: 0, total: turns.length };
  for (const turn of turns) stats[turn.caller]++;
  if (approximation(key, CALLER_STATS_ITEM, knobs.approximateCounts) !== 'exact') {
    stats.web += 0.5;
    stats.total += 0.5;
  }
  if (knobs.extraFields) stats._sampleRate = 1;
  return stats;
}
