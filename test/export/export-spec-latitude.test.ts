/**
 * What the published spec leaves open, an upstream may do, and the export must take: answers a
 * spec-following upstream may give that the emulator does not, scripted through its `body` fault,
 * through the real queue and warehouse. Each case is an answer the spec allows; none may fail the
 * run or lose a row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openExportStack, type ExportStack } from '../support/export-stack.js';

let stack: ExportStack;

beforeAll(async () => {
  // No second run of an unstable window: a case's first run is the one judged. Batches of 250 rows
  // (the least), so a run of three pages lets its first keys go and the warehouse checks them.
  stack = await openExportStack({ env: { MINTPIPE_UNSTABLE_RETRIES: '0', MINTPIPE_BATCH_ROWS: '250', MINTPIPE_ASSISTANT_THREADS: 'thread-local-ids' } });
});
afterAll(async () => {
  await stack?.close();
});

const day = { dateFrom: '2026-10-01', dateTo: '2026-10-02' };

function turn(id: string, timestamp: string, query: string) {
  return { id, timestamp, query, response: 'r', sources: [], resolutionStatus: 'answered', queryCategory: null, pageUrl: null };
}

const at = (second: number) => new Date(Date.parse('2026-10-01T00:00:00Z') + second * 1000).toISOString();

/**
 * Three assistant pages, the first two of a whole batch (250 rows) each, so the run's keys are
 * checked in the warehouse, not in memory: the first turn of the first page and the one turn of the
 * last share the conversation id `C0`, at the timestamps given.
 */
function scriptThreePages(lastTurnAt: string): void {
  const page = (from: number) => Array.from({ length: 250 }, (_, i) => turn(`C${from + i}`, at(from + i), `q${from + i}`));
  stack.emulator.control.script('assistant', [
    { kind: 'body', body: { conversations: page(0), nextCursor: '01M3WTH05DEW6WQ64M2R000023', hasMore: true } },
    { kind: 'body', body: { conversations: page(250), nextCursor: '01M3WTN286ZXNZNYQJY4000024', hasMore: true } },
    { kind: 'body', body: { conversations: [turn('C0', lastTurnAt, 'last')], nextCursor: null, hasMore: false } },
  ]);
}

describe('what the spec leaves open', () => {
  it('loads every turn of a conversation whose rows share the conversation id the spec names `id`', async () => {
    // The spec: `id` is the "unique conversation identifier"; its docs: a conversation of several
    // turns "produces multiple rows", and rows of one conversation have different timestamps.
    const project = 'turns-shared-id';
    stack.emulator.control.script('assistant', [
      {
        kind: 'body',
        body: {
          conversations: [turn('C1', '2026-10-01T10:00:00Z', 'first'), turn('C1', '2026-10-01T10:05:00Z', 'second'), turn('C2', '2026-10-01T11:00:00Z', 'other')],
          nextCursor: null,
          hasMore: false,
        },
      },
    ]);
    const [result] = await stack.exportWindows([{ dataset: 'assistant', projectId: project, ...day }]);
    expect(result?.state).toBe('completed');
    const rows = await stack.rows(`SELECT id, query FROM assistant_conversations WHERE project_id = '${project}' ORDER BY timestamp`);
    expect(rows).toEqual([
      { id: 'C1', query: 'first' },
      { id: 'C1', query: 'second' },
      { id: 'C2', query: 'other' },
    ]);
  });

  it('loads turns sharing a conversation id across batches, checked in the warehouse', async () => {
    const project = 'turns-across-batches';
    scriptThreePages(at(9000));
    const [result] = await stack.exportWindows([{ dataset: 'assistant', projectId: project, ...day }]);
    expect(result?.state).toBe('completed');
    const rows = await stack.rows(`SELECT count() AS n, countIf(id = 'C0') AS c0 FROM assistant_conversations WHERE project_id = '${project}'`);
    expect(rows).toEqual([{ n: 501, c0: 2 }]);
  });

  it('still refuses the same turn (id and timestamp) served twice in one run', async () => {
    const project = 'turn-twice';
    scriptThreePages(at(0));
    const [result] = await stack.exportWindows([{ dataset: 'assistant', projectId: project, ...day }]);
    expect(result?.state).toBe('failed');
    expect(result?.failedReason).toMatch(/id, timestamp .*C0.* seen twice in one run/);
  });

  it('loads threads whose message ids are unique only within their thread', async () => {
    // The spec: a message's `id` is its "unique message identifier", in the thread it is listed in.
    const project = 'thread-local-ids';
    stack.emulator.control.script('assistant', [
      { kind: 'body', body: { conversations: [turn('T1', at(0), 'a'), turn('T2', at(60), 'b')], nextCursor: null, hasMore: false } },
    ]);
    const [assistant] = await stack.exportWindows([{ dataset: 'assistant', projectId: project, ...day }]);
    expect(assistant?.state).toBe('completed');
    const thread = (threadId: string) => ({
      threadId,
      createdAt: at(0),
      messages: [
        { id: 'm1', role: 'user', content: `${threadId} asks`, createdAt: at(0) },
        { id: 'm2', role: 'assistant', content: `${threadId} answers`, createdAt: at(1) },
      ],
    });
    stack.emulator.control.script('assistant-threads', [
      { kind: 'body', body: thread('T1') },
      { kind: 'body', body: thread('T2') },
    ]);
    const [result] = await stack.exportWindows([{ dataset: 'assistant-threads', projectId: project, ...day }]);
    expect(result?.state).toBe('completed');
    const rows = await stack.rows(`SELECT thread_id, message_id, content FROM assistant_messages WHERE project_id = '${project}' ORDER BY thread_id, message_id`);
    expect(rows).toEqual([
      { thread_id: 'T1', message_id: 'm1', content: 'T1 asks' },
      { thread_id: 'T1', message_id: 'm2', content: 'T1 answers' },
      { thread_id: 'T2', message_id: 'm1', content: 'T2 asks' },
      { thread_id: 'T2', message_id: 'm2', content: 'T2 answers' },
    ]);
  });

  it('loads a feedback item whose time names a year past 9999, storing the time as NULL with a finding', async () => {
    // The spec types `createdAt` as a string; an ISO 8601 expanded year is a time no column can hold.
    const project = 'far-future';
    const item = (id: string, createdAt: string) => ({ id, path: '/x', comment: null, createdAt, source: 'agent', status: 'pending' });
    stack.emulator.control.script('feedback', [
      { kind: 'body', body: { feedback: [item('a', '+010000-01-01T00:00:00Z'), item('b', '2026-10-01T10:00:00Z')], nextCursor: null, hasMore: false } },
    ]);
    const [result] = await stack.exportWindows([{ dataset: 'feedback', projectId: project, ...day }]);
    expect(result?.failedReason).toBeUndefined();
    expect(result?.state).toBe('completed');
    const rows = await stack.rows(`SELECT id, created_at FROM feedback WHERE project_id = '${project}' ORDER BY id`);
    expect(rows).toEqual([
      { id: 'a', created_at: null },
      { id: 'b', created_at: '2026-10-01 10:00:00.000' },
    ]);
    const findings = await stack.rows(`SELECT kind, detail FROM data_quality WHERE project_id = '${project}' AND dataset = 'feedback'`);
    expect(findings).toEqual([{ kind: 'invalid_text', detail: expect.stringMatching(/^feedback a createdAt: "\+010000-01-01T00:00:00Z" is not a timestamp/) }]);
  });

  it('ends a searches run at an empty cursor, which names no page, without asking for it', async () => {
    const project = 'empty-cursor';
    const term = (searchQuery: string, hits: number) => ({ searchQuery, hits, ctr: 0, topClickedPage: null, lastSearchedAt: '2026-10-01T10:00:00Z' });
    stack.emulator.control.script('searches', [
      { kind: 'body', body: { searches: [term('a', 2)], totalSearches: 3, nextCursor: '01M3WTH05DEW6WQ64M2R000023' } },
      { kind: 'body', body: { searches: [term('b', 1)], totalSearches: 3, nextCursor: '' } },
    ]);
    const before = stack.emulator.counters.routes.searches.requests;
    const [result] = await stack.exportWindows([{ dataset: 'searches', projectId: project, ...day }]);
    expect(result?.failedReason).toBeUndefined();
    expect(stack.emulator.counters.routes.searches.requests - before).toBe(2);
    expect(await stack.rows(`SELECT search_query FROM searches WHERE project_id = '${project}' ORDER BY search_query`)).toEqual([{ search_query: 'a' }, { search_query: 'b' }]);
  });
});
