/**
 * What the export checks about what the upstream gives it, through the real queue, warehouse and
 * emulator: short pages lose nothing, pages past their limit and repeated cursors fail the run,
 * a refused cursor starts the window over, a missing thread is a finding, a cut answer is recorded,
 * and two datasets share one budget without a 429 of their own making.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openExportStack, type ExportStack } from '../support/export-stack.js';

let stack: ExportStack;

beforeAll(async () => {
  // The upstream serves at most 100 rows a page, whatever the limit: offsets must follow rows received.
  stack = await openExportStack({ emulator: { maxPageRows: 100 }, env: { MINTPIPE_ASSISTANT_THREADS: 'threads-404' } });
});
afterAll(async () => {
  await stack?.close();
});

const day = { dateFrom: '2026-10-01', dateTo: '2026-10-02' };

async function findings(projectId: string, dataset: string) {
  return stack.rows(`SELECT kind, detail FROM data_quality WHERE project_id = '${projectId}' AND dataset = '${dataset}' ORDER BY kind, detail`);
}

async function runStatuses(projectId: string, dataset: string) {
  const runs = await stack.rows(`SELECT status, error FROM export_runs WHERE project_id = '${projectId}' AND dataset = '${dataset}' ORDER BY started_at`);
  return runs.map((r) => String(r.status));
}

function feedbackItem(id: string) {
  return { id, path: '/x', comment: null, createdAt: null, source: 'agent', status: 'pending' };
}

describe('what the export checks', () => {
  it('loads a window served in pages shorter than the limit with hasMore, losing nothing and recording each short page', async () => {
    const project = 'short-1050';
    const [result] = await stack.exportWindows([{ projectId: project, ...day }]);
    expect(result?.state).toBe('completed');
    const truth = stack.emulator.control.truth('visitors', project, day.dateFrom, day.dateTo);
    const rows = await stack.rows(`SELECT path, total FROM visitors WHERE project_id = '${project}' ORDER BY path`);
    expect(rows.map((r) => r.path)).toEqual(truth.items.map((r) => r.path).sort());
    expect(rows).toHaveLength(1050);
    const short = (await findings(project, 'visitors')).filter((f) => f.kind === 'short_page');
    expect(short).toHaveLength(10); // 11 pages of 100 (the last ends the window)
    expect(String(short[0]?.detail)).toMatch(/has 100 rows of limit 250 and hasMore: true/);
  });

  it('reads a page again whose body came cut short or as a proxy page, and loads the window whole', async () => {
    const project = 'cut-short-300';
    // The same window of a twin project, served whole, for the requests a clean run makes.
    const requests = () => stack.emulator.counters.routes.visitors.requests;
    const clean = requests();
    expect((await stack.exportWindows([{ projectId: 'clean-300', ...day }]))[0]?.state).toBe('completed');
    const cleanRequests = requests() - clean;
    const before = requests();
    stack.emulator.control.script('visitors', [{ kind: 'malformed' }, { kind: 'body', body: '<html><body>502 Bad Gateway</body></html>' }]);
    const [result] = await stack.exportWindows([{ projectId: project, ...day }]);
    expect(result?.failedReason).toBeUndefined();
    expect(result?.state).toBe('completed');
    const truth = stack.emulator.control.truth('visitors', project, day.dateFrom, day.dateTo);
    const rows = await stack.rows(`SELECT path FROM visitors WHERE project_id = '${project}' ORDER BY path`);
    expect(rows.map((r) => r.path)).toEqual(truth.items.map((r) => r.path).sort());
    // The first page read three times, nothing else again.
    expect(requests() - before).toBe(cleanRequests + 2);
  });

  it('fails a run whose page holds more rows than the limit, loading nothing', async () => {
    const project = 'long-600';
    const rows = Array.from({ length: 251 }, (_, i) => ({ path: `/p${i}`, human: 1, ai: 0, total: 1 }));
    stack.emulator.control.script('visitors', [{ kind: 'body', body: { totals: { human: 251, ai: 0, total: 251 }, visitors: rows, hasMore: true } }]);
    const [result] = await stack.exportWindows([{ projectId: project, ...day }]);
    expect(result?.state).toBe('failed');
    expect(result?.failedReason).toMatch(/has 251 rows, more than the limit 250/);
    expect(await stack.rows(`SELECT count() AS n FROM visitor_rows WHERE project_id = '${project}'`)).toEqual([{ n: 0 }]);
  });

  it('fails a run whose upstream hands out the same cursor twice, before spending a request on it', async () => {
    const project = 'cursor-loop';
    stack.emulator.control.script('feedback', [
      { kind: 'body', body: { feedback: [feedbackItem('a')], nextCursor: 'X', hasMore: true } },
      { kind: 'body', body: { feedback: [feedbackItem('b')], nextCursor: 'X', hasMore: true } },
    ]);
    const before = stack.emulator.counters.routes.feedback.requests;
    const [result] = await stack.exportWindows([{ dataset: 'feedback', projectId: project, ...day }]);
    expect(result?.state).toBe('failed');
    expect(result?.failedReason).toMatch(/cursor "X" was handed out twice/);
    expect(stack.emulator.counters.routes.feedback.requests - before).toBe(2);
    expect(await stack.rows(`SELECT count() AS n FROM feedback WHERE project_id = '${project}'`)).toEqual([{ n: 0 }]);
  });

  it('starts a window over from its first page when the upstream refuses a cursor it gave out, and ends exact', async () => {
    const project = 'refused-250';
    stack.emulator.control.script('feedback', [{ kind: 'delay', ms: 0 }, { kind: 'status', status: 400 }]);
    const [result] = await stack.exportWindows([{ dataset: 'feedback', projectId: project, ...day }]);
    expect(result?.state).toBe('completed');
    const truth = stack.emulator.control.truth('feedback', project, day.dateFrom, day.dateTo);
    const ids = await stack.rows(`SELECT id FROM feedback WHERE project_id = '${project}' ORDER BY id`);
    expect(ids.map((r) => r.id)).toEqual(truth.items.map((f) => f.id).sort());
    expect(await runStatuses(project, 'feedback')).toEqual(['unstable', 'complete']);
    expect((await findings(project, 'feedback')).map((f) => f.kind)).toEqual(['cursor_restarted']);
  });

  it('records a thread the upstream does not know as a finding and loads the others', async () => {
    const project = 'threads-404';
    const [assistant] = await stack.exportWindows([{ dataset: 'assistant', projectId: project, ...day }]);
    expect(assistant?.state).toBe('completed');
    const threads = stack.emulator.control.truth('assistant-threads', project, day.dateFrom, day.dateTo).items;
    expect(threads.length).toBeGreaterThan(1);
    stack.emulator.control.script('assistant-threads', [{ kind: 'status', status: 404 }]);
    const [result] = await stack.exportWindows([{ dataset: 'assistant-threads', projectId: project, ...day }]);
    expect(result?.state).toBe('completed');
    const loaded = await stack.rows(`SELECT count(DISTINCT thread_id) AS n FROM assistant_messages WHERE project_id = '${project}'`);
    expect(Number(loaded[0]?.n)).toBe(threads.length - 1);
    expect((await findings(project, 'assistant-threads')).map((f) => f.kind)).toEqual(['thread_not_found']);
  });

  it('completes a one-call dataset whose answer says hasMore and records the window as truncated', async () => {
    const project = 'bypage-150';
    const [result] = await stack.exportWindows([{ dataset: 'feedback-by-page', projectId: project, ...day }]);
    expect(result?.state).toBe('completed');
    expect(await stack.rows(`SELECT count() AS n FROM feedback_by_page WHERE project_id = '${project}'`)).toEqual([{ n: 100 }]);
    expect((await findings(project, 'feedback-by-page')).map((f) => f.kind)).toEqual(['truncated']);
  });
});
