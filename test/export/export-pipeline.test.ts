import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openExportStack, type ExportStack } from '../support/export-stack.js';

let stack: ExportStack;

beforeAll(async () => {
  stack = await openExportStack({ env: { MINTPIPE_BATCH_ROWS: '1000' } });
});
afterAll(async () => {
  await stack?.close();
});

async function windowRows(projectId: string, from: string, to: string) {
  const rows = await stack.rows(
    `SELECT path, human, ai, total FROM visitors WHERE project_id = '${projectId}' AND date_from = '${from}' AND date_to = '${to}' ORDER BY total DESC, path ASC`,
  );
  return rows.map((r) => ({ path: r.path, human: Number(r.human), ai: Number(r.ai), total: Number(r.total) }));
}

async function windowTotals(projectId: string, from: string, to: string) {
  const rows = await stack.rows(
    `SELECT human, ai, total FROM visitor_totals WHERE project_id = '${projectId}' AND date_from = '${from}' AND date_to = '${to}'`,
  );
  return rows.map((r) => ({ human: Number(r.human), ai: Number(r.ai), total: Number(r.total) }));
}

describe('window export into the warehouse', () => {
  it('loads a window exactly as the upstream serves it, under 5xx, 429, resets and slow responses', async () => {
    const project = 'faulty-2600';
    stack.emulator.control.setFaults({ serverErrorRate: 0.12, rateLimitRate: 0.05, resetRate: 0.08, slowRate: 0.05, slowMs: 200 });
    try {
      const [result] = await stack.exportWindows([{ projectId: project, dateFrom: '2026-10-01', dateTo: '2026-10-02' }]);
      expect(result?.state).toBe('completed');
    } finally {
      stack.emulator.control.setFaults({});
    }
    const truth = stack.emulator.control.window(project, '2026-10-01', '2026-10-02');
    expect(truth.visitors).toHaveLength(2600);
    expect(await windowRows(project, '2026-10-01', '2026-10-02')).toEqual(truth.visitors);
    expect(await windowTotals(project, '2026-10-01', '2026-10-02')).toEqual([truth.totals]);
    expect(stack.emulator.counters.faults.status + stack.emulator.counters.faults.reset).toBeGreaterThan(0);
  });

  it('keeps a day, a week and a range as separate windows (uniques are not additive)', async () => {
    const project = 'windows';
    const windows = [
      { projectId: project, dateFrom: '2026-10-01', dateTo: '2026-10-02' },
      { projectId: project, dateFrom: '2026-10-02', dateTo: '2026-10-03' },
      { projectId: project, dateFrom: '2026-10-01', dateTo: '2026-10-03' },
    ];
    const results = await stack.exportWindows(windows);
    expect(results.map((r) => r.state)).toEqual(['completed', 'completed', 'completed']);
    for (const w of windows) {
      const truth = stack.emulator.control.window(project, w.dateFrom, w.dateTo);
      expect(await windowTotals(project, w.dateFrom, w.dateTo)).toEqual([truth.totals]);
      expect((await windowRows(project, w.dateFrom, w.dateTo)).length).toBe(truth.visitors.length);
    }
  });

  it('replaces a re-exported window for readers at once and prunes the superseded run', async () => {
    const project = 'reexport-900';
    const w = { projectId: project, dateFrom: '2026-10-05', dateTo: '2026-10-06' };
    expect((await stack.exportWindows([w]))[0]?.state).toBe('completed');
    const before = stack.emulator.control.window(project, w.dateFrom, w.dateTo);
    expect(await windowRows(project, w.dateFrom, w.dateTo)).toEqual(before.visitors);

    stack.emulator.control.mutate(project);
    const after = stack.emulator.control.window(project, w.dateFrom, w.dateTo);
    expect(after.totals).not.toEqual(before.totals);
    expect((await stack.exportWindows([w]))[0]?.state).toBe('completed');
    expect(await windowRows(project, w.dateFrom, w.dateTo)).toEqual(after.visitors);
    expect(await windowTotals(project, w.dateFrom, w.dateTo)).toEqual([after.totals]);

    const stored = await stack.rows(`SELECT uniqExact(run_id) AS runs FROM visitor_rows WHERE project_id = '${project}'`);
    expect(Number(stored[0]?.runs)).toBe(1);
  });

  it('starts over when totals drift between pages, and records the unstable run', async () => {
    const project = 'drift-1000';
    const w = { projectId: project, dateFrom: '2026-10-07', dateTo: '2026-10-08' };
    const truth = stack.emulator.control.window(project, w.dateFrom, w.dateTo);
    // Page 1 is served normally; page 2 comes back with different totals.
    const page2 = { totals: { ...truth.totals, total: truth.totals.total + 1, human: truth.totals.human + 1 }, visitors: truth.visitors.slice(250, 500), hasMore: true };
    stack.emulator.control.script('visitors', [{ kind: 'delay', ms: 0 }, { kind: 'body', body: page2 }]);
    expect((await stack.exportWindows([w]))[0]?.state).toBe('completed');
    expect(await windowRows(project, w.dateFrom, w.dateTo)).toEqual(truth.visitors);
    const runs = await stack.rows(`SELECT status FROM export_runs WHERE project_id = '${project}' ORDER BY started_at`);
    expect(runs.map((r) => r.status).sort()).toEqual(['complete', 'unstable']);
  });

  it('gives up on a window whose totals drift in every run after MINTPIPE_UNSTABLE_RETRIES (2) restarts: then fails the third run', async () => {
    const project = 'drift-always-1000';
    const w = { projectId: project, dateFrom: '2026-10-09', dateTo: '2026-10-10' };
    const truth = stack.emulator.control.window(project, w.dateFrom, w.dateTo);
    const page2 = { totals: { ...truth.totals, total: truth.totals.total + 1, human: truth.totals.human + 1 }, visitors: truth.visitors.slice(250, 500), hasMore: true };
    // Every run's page 2 drifts: runs 1, 2 and 3; a fourth run would be served cleanly and complete.
    const drift = [{ kind: 'delay' as const, ms: 0 }, { kind: 'body' as const, body: page2 }];
    stack.emulator.control.script('visitors', [...drift, ...drift, ...drift]);
    const [result] = await stack.exportWindows([w]);
    expect(result?.state).toBe('failed');
    expect(result?.failedReason).toContain('gave up after 3 runs');
    const runs = await stack.rows(`SELECT status FROM export_runs WHERE project_id = '${project}' ORDER BY started_at`);
    expect(runs.map((r) => r.status)).toEqual(['unstable', 'unstable', 'failed']);
    expect(await windowRows(project, w.dateFrom, w.dateTo)).toEqual([]);
  });

  it('loads counts the spec only calls approximate (total out of bounds, not whole) and records each as a data-quality finding', async () => {
    const project = 'approx-600';
    const w = { projectId: project, dateFrom: '2026-10-09', dateTo: '2026-10-10' };
    const truth = stack.emulator.control.window(project, w.dateFrom, w.dateTo);
    const served = truth.visitors.slice(250, 500).map((v, i) => (i === 3 ? { ...v, total: v.human + v.ai + 5 } : i === 7 ? { ...v, human: v.human + 0.5 } : v));
    stack.emulator.control.script('visitors', [{ kind: 'delay', ms: 0 }, { kind: 'body', body: { totals: truth.totals, visitors: served, hasMore: true } }]);
    const [result] = await stack.exportWindows([w]);
    expect(result?.state).toBe('completed');
    const expected = truth.visitors.map((v, i) =>
      i === 253 ? { ...v, total: v.human + v.ai + 5 } : i === 257 ? { ...v, human: Math.round(v.human + 0.5) } : v,
    );
    const sortRows = (rows: Array<{ path: unknown; total: unknown }>) => [...rows].sort((a, b) => String(a.path).localeCompare(String(b.path)));
    expect(sortRows(await windowRows(project, w.dateFrom, w.dateTo))).toEqual(sortRows(expected));
    const findings = await stack.rows(
      `SELECT kind, detail FROM data_quality WHERE project_id = '${project}' AND dataset = 'visitors' ORDER BY kind`,
    );
    expect(findings.map((f) => f.kind)).toEqual(['fractional_count', 'total_out_of_bounds']);
    expect(String(findings[0]?.detail)).toContain(`${truth.visitors[257]!.human + 0.5}`);
    expect(String(findings[1]?.detail)).toContain(JSON.stringify(truth.visitors[253]!.path));
  });

  it('fails a run whose page breaks the schema, naming the field, and shows nothing of it', async () => {
    const project = 'invalid-600';
    const w = { projectId: project, dateFrom: '2026-10-09', dateTo: '2026-10-10' };
    const truth = stack.emulator.control.window(project, w.dateFrom, w.dateTo);
    const bad = truth.visitors.slice(250, 500).map((v, i) => (i === 3 ? { ...v, total: String(v.total) } : v));
    stack.emulator.control.script('visitors', [{ kind: 'delay', ms: 0 }, { kind: 'body', body: { totals: truth.totals, visitors: bad, hasMore: true } }]);
    const [result] = await stack.exportWindows([w]);
    expect(result?.state).toBe('failed');
    expect(result?.failedReason).toMatch(/visitors\[3\]\.total/);
    expect(await windowRows(project, w.dateFrom, w.dateTo)).toEqual([]);
    const runs = await stack.rows(`SELECT status, error FROM export_runs WHERE project_id = '${project}'`);
    expect(runs.map((r) => r.status)).toEqual(['failed']);
  });

  it('starts over when a page repeats a path of an earlier page with the totals unchanged, and ends exact', async () => {
    const project = 'repeat-900';
    const w = { projectId: project, dateFrom: '2026-10-13', dateTo: '2026-10-14' };
    const truth = stack.emulator.control.window(project, w.dateFrom, w.dateTo);
    const repeated = truth.visitors.slice(250, 500).map((v, i) => (i === 0 ? truth.visitors[5]! : v));
    stack.emulator.control.script('visitors', [{ kind: 'delay', ms: 0 }, { kind: 'body', body: { totals: truth.totals, visitors: repeated, hasMore: true } }]);
    const [result] = await stack.exportWindows([w]);
    expect(result?.state).toBe('completed');
    expect(await windowRows(project, w.dateFrom, w.dateTo)).toEqual(truth.visitors);
    const runs = await stack.rows(`SELECT status, error FROM export_runs WHERE project_id = '${project}' ORDER BY started_at`);
    expect(runs.map((r) => r.status)).toEqual(['unstable', 'complete']);
    expect(String(runs[0]?.error)).toContain(`path ${JSON.stringify(truth.visitors[5]!.path)} seen twice`);
  });

  it('finds an item repeated across batches in the warehouse before completing, and starts over (memory keeps one batch)', async () => {
    const project = 'dup-batches';
    const item = (id: string) => ({ id, path: '/x', comment: null, createdAt: null, source: 'agent', status: 'pending' });
    // 12 cursor pages of 100 items (batches of 1000 rows = 10 pages): page 12 repeats an item of page 1.
    const pages = Array.from({ length: 12 }, (_, p) => ({
      feedback: Array.from({ length: 100 }, (_, i) => item(p === 11 && i === 0 ? 'p0-5' : `p${p}-${i}`)),
      nextCursor: p === 11 ? null : `c${p}`,
      hasMore: p !== 11,
    }));
    stack.emulator.control.script('feedback', pages.map((body) => ({ kind: 'body' as const, body })));
    const [result] = await stack.exportWindows([{ dataset: 'feedback', projectId: project, dateFrom: '2026-10-15', dateTo: '2026-10-16' }]);
    expect(result?.state).toBe('completed');
    const runs = await stack.rows(`SELECT status, error FROM export_runs WHERE project_id = '${project}' ORDER BY started_at`);
    expect(runs.map((r) => r.status)).toEqual(['unstable', 'complete']);
    expect(String(runs[0]?.error)).toContain('id "p0-5" seen twice in one run');
    const truth = stack.emulator.control.truth('feedback', project, '2026-10-15', '2026-10-16');
    const ids = await stack.rows(`SELECT id FROM feedback WHERE project_id = '${project}' ORDER BY id`);
    expect(ids.map((r) => r.id)).toEqual(truth.items.map((f) => f.id).sort());
  });

  it('fails a run when a page is empty but says hasMore, instead of looping', async () => {
    const project = 'loop-600';
    const w = { projectId: project, dateFrom: '2026-10-11', dateTo: '2026-10-12' };
    const truth = stack.emulator.control.window(project, w.dateFrom, w.dateTo);
    stack.emulator.control.script('visitors', [{ kind: 'body', body: { totals: truth.totals, visitors: [], hasMore: true } }]);
    const [result] = await stack.exportWindows([w]);
    expect(result?.state).toBe('failed');
    expect(result?.failedReason).toMatch(/empty but says hasMore/);
    expect(await windowRows(project, w.dateFrom, w.dateTo)).toEqual([]);
  });

  it('never stores the API key in job data or the warehouse', async () => {
    const jobs = await stack.runtime.queue('export').getJobs(['completed', 'failed'], 0, 100);
    expect(jobs.length).toBeGreaterThan(0);
    expect(JSON.stringify(jobs.map((j) => j.asJSON()))).not.toContain('mint_test_secret');
    const runs = await stack.rows('SELECT * FROM export_runs');
    expect(JSON.stringify(runs)).not.toContain('mint_test_secret');
  });
});
