/**
 * A window whose job was lost from Redis (its run reaped as `abandoned`, rows kept) resumes that
 * run when it is enqueued again: it fetches only the pages after the stored ones and ends exact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MintlifyClient } from '../../src/api/index.js';
import { FindingLog, getDataset, RowContext } from '../../src/datasets/index.js';
import { schemaOf } from '../../src/datasets/dataset-schema.js';
import { insertRowBatch, recordRunEvent } from '../../src/warehouse/index.js';
import { openExportStack, TEST_API_KEY, type ExportStack } from '../support/export-stack.js';

let stack: ExportStack;

beforeAll(async () => {
  stack = await openExportStack();
});
afterAll(async () => {
  await stack?.close();
});

describe('a window lost from Redis', () => {
  it('resumes its abandoned run from the stored rows and cursor when enqueued again, fetching only the pages after them', async () => {
    const project = 'adopt-1000'; // 1,000 feedback items: 10 pages of 100
    const window = { dataset: 'feedback' as const, projectId: project, dateFrom: '2026-10-01', dateTo: '2026-10-02' };
    const feedback = getDataset('feedback');
    const client = new MintlifyClient({ baseUrl: stack.emulator.url, apiKey: TEST_API_KEY });
    // What a run that died after loading three pages left behind: its rows, the cursor after them.
    let cursor: string | null = null;
    const rows: Record<string, unknown>[] = [];
    for (let page = 0; page < 3; page++) {
      const params: Record<string, string> = { dateFrom: window.dateFrom, dateTo: window.dateTo, limit: '100', ...(cursor ? { cursor } : {}) };
      const { value } = await client.getAnalyticsPage(project, 'feedback', params, schemaOf(feedback));
      const ctx = new RowContext(new FindingLog(), 'keep');
      const view = feedback.page(value, ctx);
      rows.push(...view.items.map((item) => feedback.row(item, ctx)));
      cursor = view.nextCursor ?? null;
    }
    const runId = 'feedback_adopt_left_behind';
    const startedAt = new Date(Date.now() - 3_600_000);
    await recordRunEvent(stack.warehouse, { ...window, runId, kind: 'nightly', status: 'running', startedAt, seq: 1 });
    await insertRowBatch(stack.warehouse, { ...window, runId, table: feedback.table, batchOffset: 0, batchEnd: 300, batchCursor: cursor!, rows });
    await recordRunEvent(stack.warehouse, { ...window, runId, kind: 'nightly', status: 'abandoned', rows: 300, pages: 3, requests: 3, startedAt });

    const before = stack.emulator.counters.routes.feedback.requests;
    const [result] = await stack.exportWindows([window]);
    expect(result?.state).toBe('completed');
    expect((result?.returnvalue as { runId: string }).runId).toBe(runId);
    expect(stack.emulator.counters.routes.feedback.requests - before).toBe(7);
    const truth = stack.emulator.control.truth('feedback', project, window.dateFrom, window.dateTo);
    const ids = await stack.rows(`SELECT id FROM feedback WHERE project_id = '${project}' ORDER BY id`);
    expect(ids.map((r) => r.id)).toEqual(truth.items.map((f) => f.id).sort());
  });
});
