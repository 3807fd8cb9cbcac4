/**
 * The windows the emulator serves: computed once, then paged from an LRU cache, so each later page
 * of even a million-path window costs O(limit). Also holds each project's data revision, which
 * `control.mutate` bumps to make numbers and order drift between pages.
 */
import { computeCompactWindow, type CompactWindow } from './compute-window.js';
import { LruCache } from './lru-cache.js';

export class WindowStore {
  private readonly cache: LruCache<string, CompactWindow>;
  private readonly revisions = new Map<string, number>();
  /** Windows computed so far (cache misses); tests use it to prove the cache works. */
  computed = 0;

  constructor(
    private readonly seed: number,
    cacheSize: number,
    cacheRows: number,
  ) {
    // Weighed by rows: 16 bytes each, so the default 4,000,000 rows hold ~64 MB.
    this.cache = new LruCache(cacheSize, cacheRows);
  }

  get(projectId: string, fromMs: number, toMs: number, pathCount: number): CompactWindow {
    const revision = this.revision(projectId);
    const key = `${projectId}\u0000${fromMs}\u0000${toMs}\u0000${pathCount}\u0000${revision}`;
    let window = this.cache.get(key);
    if (!window) {
      window = computeCompactWindow(this.seed, projectId, fromMs, toMs, pathCount, revision);
      this.computed++;
      this.cache.set(key, window, Math.max(1, window.size));
    }
    return window;
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
}
