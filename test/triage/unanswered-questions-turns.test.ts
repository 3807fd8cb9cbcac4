/**
 * The unanswered-questions recipe counts turns, whatever ids the upstream gives them: the spec lets
 * every turn of one conversation carry the conversation's `id` (a turn is its id with its
 * timestamp), and a turn exported in two overlapping windows (a day and its week) is still one turn.
 * So do the dashboard's Fixes, counting a question's turns before and after its job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { triageFixes } from '../../src/ops/fixes-reads.js';
import { directReader } from '../../src/ops/warehouse-reader.js';
import { loadRecipe } from '../../src/triage/load-recipes.js';
import { recipeSql } from '../../src/triage/recipe-sql.js';
import { insertPromptEvents } from '../../src/warehouse/prompt-events.js';
import { openExportStack, type ExportStack } from '../support/export-stack.js';

let stack: ExportStack;
const PROJECT = 'shared-id-turns';
const SUBJECT = 'how do i rotate my key?';

beforeAll(async () => {
  stack = await openExportStack();
});
afterAll(async () => {
  await stack?.close();
});

function clarifyingTurn(id: string, timestamp: string) {
  const turn = { id, timestamp, query: 'How do I rotate my key?', response: 'Which key?', responseType: 'clarifying_question' };
  return { ...turn, sources: [], resolutionStatus: 'unanswered', queryCategory: null, pageUrl: null };
}

describe('unanswered-questions', () => {
  it('counts two turns of one conversation that share its id once each, across a day and its week', async () => {
    const project = PROJECT;
    const body = {
      conversations: [clarifyingTurn('C1', '2026-10-01T10:00:00Z'), clarifyingTurn('C1', '2026-10-01T10:05:00Z')],
      nextCursor: null,
      hasMore: false,
    };
    stack.emulator.control.script('assistant', [
      { kind: 'body', body },
      { kind: 'body', body },
    ]);
    const results = await stack.exportWindows([
      { dataset: 'assistant', projectId: project, dateFrom: '2026-10-01', dateTo: '2026-10-02' },
      { dataset: 'assistant', projectId: project, dateFrom: '2026-09-28', dateTo: '2026-10-05' },
    ]);
    expect(results.map((r) => r.state)).toEqual(['completed', 'completed']);
    const groups = await stack.rows(recipeSql(loadRecipe('unanswered-questions', undefined), { project, sinceDate: '2026-09-28' }));
    expect(groups.map((g) => ({ subject: g.subject, turns: Number(g.turns) }))).toEqual([{ subject: SUBJECT, turns: 2 }]);
  });

  it("counts them once each in the dashboard's Fixes too (the turns before the question's job)", async () => {
    const finishedMs = Date.parse('2026-10-02T00:00:00Z');
    const base = { batchId: 'b0000000000000001', promptId: 'p0000000000000000001', projectId: PROJECT, kind: 'create' as const, key: `unanswered-questions:${PROJECT}:${SUBJECT}` };
    await insertPromptEvents(stack.warehouse, [
      { ...base, jobId: '', status: 'queued', version: 1, sources: ['C1'] },
      { ...base, jobId: 'job-1', status: 'completed', version: 3, sentAt: new Date(finishedMs - 60_000), finishedAt: new Date(finishedMs) },
    ]);
    const [fix] = await triageFixes(directReader(stack.warehouse), { projectId: PROJECT, effectDays: 2, nowMs: finishedMs + 2 * 86_400_000 });
    expect(fix?.effect).toEqual({ before: { share: null, count: 2 }, after: { share: null, count: 0 } });
  });
});
