/**
 * The windows the emulator serves, per dataset: computed once, then paged from an LRU cache, so
 * each later page of even a million-path window costs O(limit). Also holds each project's data
 * revision, which `control.mutate` bumps to make numbers and order drift between pages, and the
 * threads of every assistant window served so far (a thread id names no window by itself).
 */
import type { ResolvedAnalyticsKnobs } from './analytics-knobs.js';
import type { FeedbackItem } from './compute-feedback.js';
import { computeCompactWindow, type TrafficMeasure } from './compute-window.js';
import { knobKey } from './knob-draws.js';
import { LruCache } from './lru-cache.js';
import { servedAssistant, type AssistantWindow } from './served-assistant.js';
import { servedFeedback } from './served-feedback.js';
import { servedSearches, type SearchesWindow } from './served-searches.js';
import { TrafficWindow } from './traffic-window.js';
import type { WindowRef } from './window-ref.js';

export class WindowStore {
  private readonly cache: LruCache<string, unknown>;
  private readonly revisions = new Map<string, number>();
  /** `project \0 threadId` → the assistant window that has the thread. */
  private readonly threadWindows = new Map<string, WindowRef>();
  /** Windows computed so far (cache misses); tests use it to prove the cache works. */
  computed = 0;

  constructor(
    private readonly seed: number,
    cacheSize: number,
    cacheRows: number,
  ) {
    // Weighed by rows: 16 bytes each for traffic, so the default 4,000,000 rows hold ~64 MB.
    this.cache = new LruCache(cacheSize, cacheRows);
  }

  /** A window of the project as of its current revision. */
  ref(projectId: string, dateFrom: string, dateTo: string, fromMs: number, toMs: number): WindowRef {
    return { projectId, dateFrom, dateTo, fromMs, toMs, revision: this.revision(projectId) };
  }

  /** A visitors or views window of `pathCount` paths, as served. */
  traffic(measure: TrafficMeasure, knobs: ResolvedAnalyticsKnobs, ref: WindowRef, pathCount: number): TrafficWindow {
    return this.cached(`${measure}\u0000${pathCount}`, ref, () => {
      const compact = computeCompactWindow(this.seed, ref.projectId, ref.fromMs, ref.toMs, pathCount, ref.revision, measure);
      const key = knobKey(this.seed, measure, ref.projectId, ref.fromMs, ref.toMs, ref.revision);
      return { value: new TrafficWindow(compact, knobs, key), weight: compact.size };
    });
  }

  /** Every feedback item of the window, in serving order. */
  feedback(knobs: ResolvedAnalyticsKnobs, ref: WindowRef): FeedbackItem[] {
    return this.cached('feedback', ref, () => {
      const items = servedFeedback(this.seed, knobs, ref);
      return { value: items, weight: items.length * 8 };
    });
  }

  /** The assistant data of the window; its threads become findable. */
  assistant(knobs: ResolvedAnalyticsKnobs, ref: WindowRef): AssistantWindow {
    return this.cached('assistant', ref, () => {
      const window = servedAssistant(this.seed, knobs, ref);
      for (const threadId of window.threads.keys()) this.threadWindows.set(`${ref.projectId}\u0000${threadId}`, ref);
      return { value: window, weight: window.conversations.length * 16 };
    });
  }

  searches(knobs: ResolvedAnalyticsKnobs, ref: WindowRef): SearchesWindow {
    return this.cached('searches', ref, () => {
      const window = servedSearches(this.seed, knobs, ref);
      return { value: window, weight: window.searches.length * 8 };
    });
  }

  /** The window whose assistant data has this thread, once that window was served. */
  threadWindow(projectId: string, threadId: string): WindowRef | undefined {
    return this.threadWindows.get(`${projectId}\u0000${threadId}`);
  }

  revision(projectId: string): number {
    return this.revisions.get(projectId) ?? 0;
  }

  /** Changes every window of the project from now on; returns the new revision. */
  mutate(projectId: string): number {
    const revision = this.revision(projectId) + 1;
    this.revisions.set(projectId, revision);
    return revision;
  }

  private cached<T>(kind: string, ref: WindowRef, compute: () => { value: T; weight: number }): T {
    const key = `${kind}\u0000${ref.projectId}\u0000${ref.fromMs}\u0000${ref.toMs}\u0000${ref.revision}`;
    let value = this.cache.get(key) as T | undefined;
    if (value === undefined) {
      const computed = compute();
      this.computed++;
      this.cache.set(key, computed.value, Math.max(1, computed.weight));
      value = computed.value;
    }
    return value;
  }
}
