/**
 * The windows the emulator serves, per dataset: computed once, then paged from an LRU cache, so
 * each later page of even a million-path window costs O(limit). Also holds each project's data
 * revision, which `control.mutate` bumps to make numbers and order drift between pages, and the
 * window of every thread id served so far (a thread id names no window by itself).
 */
import { LruCache } from './lru-cache.js';
import { makeWindowRef, type WindowRef } from './window-ref.js';

export class WindowStore {
  private readonly cache: LruCache<string, unknown>;
  private readonly revisions = new Map<string, number>();
  /** `project \0 threadId` → the assistant window that has the thread. */
  private readonly threadWindows = new Map<string, WindowRef>();
  /** Windows computed so far (cache misses); tests use it to prove the cache works. */
  computed = 0;

  constructor(cacheSize: number, cacheRows: number) {
    // Weighed by rows: 16 bytes each for traffic, so the default 4,000,000 rows hold ~64 MB.
    this.cache = new LruCache(cacheSize, cacheRows);
  }

  /** A window of the project as of its current revision, and of the clock's day (`nowMs`). */
  ref(projectId: string, dateFrom: string, dateTo: string, fromMs: number, toMs: number, nowMs: number): WindowRef {
    return makeWindowRef({ projectId, dateFrom, dateTo, fromMs, toMs }, this.revision(projectId), nowMs);
  }

  /** Remembers that these thread ids belong to the window `ref`. */
  addThreads(ref: WindowRef, threadIds: Iterable<string>): void {
    for (const threadId of threadIds) this.threadWindows.set(`${ref.projectId}\u0000${threadId}`, ref);
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

  /**
   * The value `kind` of the window, computed once while it stays in the cache; `weight` counts
   * rows (16 bytes each for traffic), so one cache bounds every dataset's memory.
   */
  cached<T>(kind: string, ref: WindowRef, compute: () => { value: T; weight: number }): T {
    const key = `${kind}\u0000${ref.projectId}\u0000${ref.fromMs}\u0000${ref.toMs}\u0000${ref.revision}\u0000${ref.future}`;
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
