import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsBudget } from '../../src/queue/request-budget.js';
import { openExportStack, type ExportStack } from '../support/export-stack.js';

let stack: ExportStack;

beforeAll(async () => {
  stack = await openExportStack({ env: { MINTPIPE_ANALYTICS_RATE: '1000/1h' } });
});
afterAll(async () => {
  await stack?.close();
});

const budgetUsed = async () => (await analyticsBudget(stack.runtime.redis, stack.config.queuePrefix, stack.config.analyticsRate).usage()).used;

describe('a body nested 100,000 levels deep', () => {
  it('is an invalid body: one request, no retry, no extra budget request, and the run fails with one line', async () => {
    // Deep inside a field beyond the schema; a lone surrogate (\ud800) sends the body through the text repair, which walks it all.
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const conversation = `{"id":"c1","timestamp":"2026-10-01T10:00:00Z","query":"q\\ud800","response":"r","sources":[],"resolutionStatus":"answered","queryCategory":null,"pageUrl":null,"deep":${deep}}`;
    stack.emulator.control.script('assistant', [{ kind: 'body', body: `{"conversations":[${conversation}],"nextCursor":null,"hasMore":false}` }]);
    const [requestsBefore, usedBefore] = [stack.emulator.counters.analyticsRequests, await budgetUsed()];
    const [result] = await stack.exportWindows([{ dataset: 'assistant', projectId: 'deep', dateFrom: '2026-10-01', dateTo: '2026-10-02' }]);
    expect(result?.state).toBe('failed');
    expect(result?.failedReason).toMatch(/invalid response body: body nests objects or arrays deeper than 256 levels/);
    expect(result?.failedReason).not.toContain('\n');
    expect(result?.failedReason).not.toMatch(/call stack/i);
    expect(stack.emulator.counters.analyticsRequests - requestsBefore).toBe(1);
    expect((await budgetUsed()) - usedBefore).toBe(1);
    const [run] = await stack.rows("SELECT status, error FROM export_runs WHERE project_id = 'deep'");
    expect(run).toMatchObject({ status: 'failed', error: expect.stringContaining('deeper than 256 levels') });
  }, 60_000);
});

describe('a __proto__ key in a body that needed text repair', () => {
  it('never becomes an inherited field of a stored row', async () => {
    // A lone surrogate (\ud800) sends the body through the text repair, which rebuilds every object.
    const conversation = `{"id":"c1","timestamp":"2026-10-01T10:00:00Z","query":"q\\ud800","response":"r","sources":[],"resolutionStatus":"answered","queryCategory":null,"pageUrl":null,"__proto__":{"polluted":"inherited","constructor":"x"},"kept":"own"}`;
    stack.emulator.control.script('assistant', [{ kind: 'body', body: `{"conversations":[${conversation}],"nextCursor":null,"hasMore":false}` }]);
    const [result] = await stack.exportWindows([{ dataset: 'assistant', projectId: 'proto', dateFrom: '2026-10-01', dateTo: '2026-10-02' }]);
    expect(result?.failedReason).toBeUndefined();
    const rows = await stack.rows("SELECT id, query, extra FROM assistant_conversation_rows WHERE project_id = 'proto'");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.query).toBe('q\uFFFD');
    expect(String(rows[0]!.extra)).toContain('kept');
    expect(String(rows[0]!.extra)).not.toContain('polluted');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 60_000);
});
