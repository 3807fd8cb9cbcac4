/**
 * The check step of a window's export (src/export/page-read.ts): what an answer means for the run,
 * and what a page adds to the batch.
 */
import { describe, expect, it } from 'vitest';
import { InvalidRequestError, NotFoundError } from '../../src/api/index.js';
import { FindingLog, getDataset, type DatasetName } from '../../src/datasets/index.js';
import { BudgetWaitError, CursorRefusedError } from '../../src/export/errors.js';
import { PageChecks } from '../../src/export/page-checks.js';
import { checkPage, readAnswer } from '../../src/export/page-read.js';
import { Pager } from '../../src/export/pager.js';

const WINDOW = { dateFrom: '2026-10-01', dateTo: '2026-10-02' };

function parts(name: DatasetName, ids: string[] = []) {
  const dataset = getDataset(name);
  const pager = new Pager(dataset, WINDOW, ids);
  const paginated = dataset.pagination.kind === 'offset' || dataset.pagination.kind === 'cursor';
  return { dataset, pager, checks: new PageChecks({ limit: pager.limit, keyColumn: dataset.keyColumn, paginated }), pii: 'keep' as const };
}

const visitorsPage = (paths: string[], hasMore: boolean) => ({
  totals: { human: 1000, ai: 0, total: 1000 },
  visitors: paths.map((path) => ({ path, human: 1, ai: 0, total: 1 })),
  hasMore,
});

describe('what an answer means for the run', () => {
  const start = { position: 0, cursor: null };

  it('reads a page, recording each text the client repaired as a finding', () => {
    const { dataset, pager } = parts('visitors');
    const answer = readAnswer({ ok: true, body: { any: 1 }, repaired: ['visitors[0].path'] }, dataset, pager, start);
    expect(answer.kind).toBe('page');
    expect(answer.kind === 'page' && answer.findings.drain()).toEqual([{ kind: 'invalid_text', detail: 'visitors[0].path: invalid Unicode replaced with U+FFFD (position 0)' }]);
  });

  it('turns a spent budget into a wait, and any other failure into the run failing', () => {
    const { dataset, pager } = parts('visitors');
    expect(readAnswer({ ok: false, error: new BudgetWaitError(1234) }, dataset, pager, start)).toEqual({ kind: 'budget', waitMs: 1234 });
    const error = new NotFoundError({ op: 'getAnalytics' });
    expect(readAnswer({ ok: false, error }, dataset, pager, start)).toEqual({ kind: 'failed', error });
  });

  it('records a thread the upstream does not know as a finding and goes on with no rows', () => {
    const { dataset, pager } = parts('assistant-threads', ['t1', 't2']);
    const answer = readAnswer({ ok: false, error: new NotFoundError({ op: 'getAnalytics', serverMessage: 'no such thread' }) }, dataset, pager, { position: 1, cursor: null });
    expect(answer.kind === 'page' && answer.body).toBeUndefined();
    expect(answer.kind === 'page' && answer.findings.drain()).toEqual([{ kind: 'thread_not_found', detail: 't2: 404 getAnalytics: HTTP 404 not found: no such thread' }]);
  });

  it('records a thread whose id the upstream refuses (a 400: the thread path takes a ULID) the same way, not failing the run', () => {
    const { dataset, pager } = parts('assistant-threads', ['t1', 'not-a-ulid']);
    const refused = new InvalidRequestError({ op: 'getAnalytics', status: 400, serverMessage: 'Invalid thread ID' });
    const answer = readAnswer({ ok: false, error: refused }, dataset, pager, { position: 1, cursor: null });
    expect(answer.kind === 'page' && answer.body).toBeUndefined();
    expect(answer.kind === 'page' && answer.findings.drain()).toEqual([{ kind: 'thread_not_found', detail: `not-a-ulid: 400 ${refused.message}` }]);
  });

  it('starts the run over when the upstream refuses a cursor it gave out, but fails a refused first page', () => {
    const { dataset, pager } = parts('feedback');
    const refused = new InvalidRequestError({ op: 'getAnalytics', status: 400, serverMessage: 'bad cursor' });
    expect(() => readAnswer({ ok: false, error: refused }, dataset, pager, { position: 100, cursor: 'abc' })).toThrow(CursorRefusedError);
    expect(readAnswer({ ok: false, error: refused }, dataset, pager, start)).toEqual({ kind: 'failed', error: refused });
  });
});

describe('what a page adds to the batch', () => {
  it('returns its rows and the next offset, and marks an offset page shorter than the limit that says more follow', () => {
    const p = parts('visitors');
    const full = checkPage({ body: visitorsPage(['/a', '/b'], false), findings: new FindingLog() }, { position: 0, cursor: null }, p);
    expect(full.rows.map((r) => r.path)).toEqual(['/a', '/b']);
    expect(full).toMatchObject({ after: { position: 2 }, done: true });
    expect(full.short).toBeUndefined();
    const short = checkPage({ body: visitorsPage(['/c'], true), findings: new FindingLog() }, { position: 250, cursor: null }, parts('visitors'));
    expect(short).toMatchObject({ after: { position: 251 }, done: false, short: { items: 1, limit: 250 } });
  });

  it('records a one-call answer that says it was cut as truncated', () => {
    const body = { feedback: [{ path: '/a', thumbsUp: 1, thumbsDown: 0, code: 0, total: 1 }], hasMore: true };
    const checked = checkPage({ body, findings: new FindingLog() }, { position: 0, cursor: null }, parts('feedback-by-page'));
    expect(checked.done).toBe(true);
    expect(checked.findings.drain()).toEqual([{ kind: 'truncated', detail: 'the answer holds 1 rows and says hasMore: true; the endpoint has no way to fetch the rest' }]);
  });

  it('reads an unknown thread as an empty page and steps past it', () => {
    const checked = checkPage({ body: undefined, findings: new FindingLog() }, { position: 0, cursor: null }, parts('assistant-threads', ['t1', 't2']));
    expect(checked).toMatchObject({ rows: [], after: { position: 1 }, done: false });
  });
});
