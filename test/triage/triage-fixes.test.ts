import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsTruth } from '../../src/emulator/index.js';
import { triageFixes } from '../../src/ops/fixes-reads.js';
import { directReader } from '../../src/ops/warehouse-reader.js';
import { insertPromptEvents } from '../../src/warehouse/prompt-events.js';
import { openExportStack, type ExportStack } from '../support/export-stack.js';

const SEED = 11;
const PROJECT = 'fx';
const DAY_MS = 86_400_000;
/**
 * A fixed day, not today: the emulator's data follows the date, and triageFixes takes its clock
 * (`nowMs`). On these days the page has rated items before and after the fix, with different shares.
 */
const today = Date.parse('2026-10-20T00:00:00Z');
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Four exported days; the job finished at the start of the third. */
const windows = [4, 3, 2, 1].map((back) => ({ projectId: PROJECT, dateFrom: day(today - back * DAY_MS), dateTo: day(today - (back - 1) * DAY_MS) }));
const finishedMs = today - 2 * DAY_MS;

let stack: ExportStack;

beforeAll(async () => {
  stack = await openExportStack({ emulator: { seed: SEED } });
  const done = await stack.exportWindows(windows.map((w) => ({ ...w, dataset: 'feedback' as const })));
  expect(done.map((d) => d.state)).toEqual(['completed', 'completed', 'completed', 'completed']);
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

/** Per the emulator: a page's not-helpful share and commented items over some windows. */
function truthOf(path: string, ws: typeof windows) {
  const items = ws.flatMap((w) => analyticsTruth({ seed: SEED }, 'feedback', PROJECT, w.dateFrom, w.dateTo).items.filter((i) => i.path === path));
  const rated = items.filter((i) => i.source === 'contextual' && i.helpful !== undefined);
  const notHelpful = rated.filter((i) => i.helpful === false).length;
  return { share: rated.length ? notHelpful / rated.length : null, count: items.filter((i) => (i.comment ?? '').trim() !== '').length };
}

describe('the dashboard Fixes of a triaged page', () => {
  it('links the complaints to the job and PR, says too early before N days, then compares the N days before with the N after', async () => {
    const first = analyticsTruth({ seed: SEED }, 'feedback', PROJECT, windows[0]!.dateFrom, windows[0]!.dateTo).items;
    expect(first.length, 'the first exported day has feedback').toBeGreaterThan(0);
    const path = first[0]!.path;
    const complaints = first.filter((i) => i.path === path).map((i) => i.id).slice(0, 3);
    const base = { batchId: 'b0000000000000001', promptId: 'p0000000000000000001', projectId: PROJECT, kind: 'create' as const, key: `feedback-hotspots:${PROJECT}:${path}` };
    await insertPromptEvents(stack.warehouse, [
      { ...base, jobId: '', status: 'queued', version: 1, sources: complaints },
      { ...base, jobId: 'job-9', status: 'completed', version: 3, prLink: 'https://github.com/acme/docs/pull/9', sentAt: new Date(finishedMs - 60_000), finishedAt: new Date(finishedMs) },
    ]);
    const reader = directReader(stack.warehouse);

    const early = await triageFixes(reader, { projectId: PROJECT, effectDays: 2, nowMs: finishedMs + DAY_MS });
    expect(early).toMatchObject([{ recipe: 'feedback-hotspots', subject: path, items: complaints.length, jobId: 'job-9', status: 'completed', prLink: 'https://github.com/acme/docs/pull/9', tooEarly: true, effect: null }]);

    const [fix] = await triageFixes(reader, { projectId: PROJECT, effectDays: 2, nowMs: finishedMs + 2 * DAY_MS });
    expect(fix!.tooEarly).toBe(false);
    const before = truthOf(path, windows.slice(0, 2));
    const after = truthOf(path, windows.slice(2));
    expect([before.share, after.share], 'the chosen days have rated items of the page before and after, with different shares').toEqual([expect.any(Number), expect.any(Number)]);
    expect(before.share).not.toBe(after.share);
    expect(before.count * after.count, 'the chosen days have comments on the page before and after').toBeGreaterThan(0);
    expect(fix!.effect!.before.count).toBe(before.count);
    expect(fix!.effect!.after.count).toBe(after.count);
    expect(fix!.effect!.before.share).toBeCloseTo(before.share!, 9);
    expect(fix!.effect!.after.share).toBeCloseTo(after.share!, 9);
  });

  it('gives no share, not a zero, for days without rated feedback on the page', async () => {
    const path = '/sdks/openapi/caching';
    const before = truthOf(path, windows.slice(0, 2));
    const after = truthOf(path, windows.slice(2));
    expect([before.share, after.share], 'the page has rated feedback before the fix and none after').toEqual([expect.any(Number), null]);
    const complaints = analyticsTruth({ seed: SEED }, 'feedback', PROJECT, windows[0]!.dateFrom, windows[0]!.dateTo).items.filter((i) => i.path === path).map((i) => i.id);
    const base = { batchId: 'b0000000000000002', promptId: 'p0000000000000000002', projectId: PROJECT, kind: 'create' as const, key: `feedback-hotspots:${PROJECT}:${path}` };
    await insertPromptEvents(stack.warehouse, [
      { ...base, jobId: '', status: 'queued', version: 1, sources: complaints },
      { ...base, jobId: 'job-10', status: 'completed', version: 3, sentAt: new Date(finishedMs - 60_000), finishedAt: new Date(finishedMs) },
    ]);

    const fixes = await triageFixes(directReader(stack.warehouse), { projectId: PROJECT, effectDays: 2, nowMs: finishedMs + 2 * DAY_MS });
    expect(fixes.find((f) => f.subject === path)?.effect).toEqual({ before: { share: before.share, count: before.count }, after: { share: null, count: after.count } });
  });
});
