/**
 * What enqueue.ts decides without a queue: a window job's run id and its priority (nightly before
 * re-exports before manual windows; within a kind, datasets in the configured order). The adding
 * itself (deduplication by window) needs Redis: test/export/enqueue.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newRunId, PRIORITY, windowPriority } from '../../src/export/enqueue.js';
import { DATASET_NAMES } from '../../src/datasets/index.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('the run id of a window job', () => {
  it('names the dataset, the project (made safe and at most 40 characters), the dates, the time and a random part', () => {
    vi.useFakeTimers({ now: 1_700_000_000_000, toFake: ['Date'] });
    const id = newRunId({ dataset: 'views', projectId: `my docs/é.${'x'.repeat(50)}`, dateFrom: '2026-11-01', dateTo: '2026-11-02' });
    const project = `my_docs___${'x'.repeat(30)}`;
    expect(project).toHaveLength(40);
    expect(id).toMatch(new RegExp(`^views_${project}_2026-11-01_2026-11-02_${(1_700_000_000_000).toString(36)}[0-9a-f]{6}$`));
  });

  it('keeps letters, digits, _ and - of the project', () => {
    expect(newRunId({ dataset: 'searches', projectId: 'Docs_2-b', dateFrom: 'a', dateTo: 'b' })).toMatch(/^searches_Docs_2-b_a_b_/);
  });

  it('differs between two windows made in the same millisecond', () => {
    vi.useFakeTimers({ now: 1_700_000_000_000, toFake: ['Date'] });
    const w = { dataset: 'views' as const, projectId: 'p', dateFrom: 'a', dateTo: 'b' };
    expect(newRunId(w)).not.toBe(newRunId(w));
  });
});

describe('the priority of a window job (lower runs first)', () => {
  it('runs nightly windows before re-exports, and re-exports before manual windows, whatever the dataset', () => {
    const last = DATASET_NAMES[DATASET_NAMES.length - 1]!;
    const first = DATASET_NAMES[0]!;
    expect(windowPriority('nightly', last)).toBeLessThan(windowPriority('reexport', first));
    expect(windowPriority('reexport', last)).toBeLessThan(windowPriority('manual', first));
    expect(PRIORITY).toEqual({ nightly: 1, reexport: 100, manual: 200 });
  });

  it('orders the datasets of one kind as configured, an unlisted dataset after every listed one', () => {
    expect(windowPriority('nightly', 'searches', ['searches', 'views'])).toBe(1);
    expect(windowPriority('nightly', 'views', ['searches', 'views'])).toBe(2);
    expect(windowPriority('nightly', 'feedback', ['searches', 'views'])).toBe(3);
    expect(windowPriority('manual', 'views', ['searches', 'views'])).toBe(201);
  });

  it('orders by the declared datasets by default', () => {
    DATASET_NAMES.forEach((name, place) => expect(windowPriority('reexport', name)).toBe(100 + place));
  });
});
