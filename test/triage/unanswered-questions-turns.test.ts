/**
 * The unanswered-questions recipe counts turns, whatever ids the upstream gives them: the spec lets
 * every turn of one conversation carry the conversation's `id` (a turn is its id with its
 * timestamp), and a turn exported in two overlapping windows (a day and its week) is still one turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecipe } from '../../src/triage/load-recipes.js';
import { recipeSql } from '../../src/triage/recipe-sql.js';
import { openExportStack, type ExportStack } from '../support/export-stack.js';

let stack: ExportStack;

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
    const project = 'shared-id-turns';
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
    expect(groups.map((g) => ({ subject: g.subject, turns: Number(g.turns) }))).toEqual([{ subject: 'how do i rotate my key?', turns: 2 }]);
  });
});
