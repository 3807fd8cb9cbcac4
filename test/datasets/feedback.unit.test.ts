/**
 * The feedback declaration against the published spec: every source and status the spec lists is
 * read (and nothing else), a code snippet keeps its file name, an unreadable time is named with its
 * item, and the key the page checks compare is the item's id. The three item shapes and unknown
 * fields: datasets-rows.unit.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { FindingLog, getDataset, RowContext } from '../../src/datasets/index.js';
import { schemaOf } from '../../src/datasets/dataset-schema.js';
import { analyticsSpec, specProblems } from '../support/analytics-spec.js';

const feedback = getDataset('feedback');

interface ItemShape {
  properties: { source: { enum: string[] }; status: { enum: string[] } };
}
/** The spec's third item shape: the fields every feedback item has. */
const commonShape = (analyticsSpec.definitions.FeedbackResponse!.properties as { feedback: { items: { anyOf: ItemShape[] } } }).feedback.items.anyOf[2]!;

const base = { id: 'f1', path: '/a', comment: null, createdAt: '2026-10-01T00:00:00Z', source: 'agent', status: 'pending' };
const body = (...items: object[]) => ({ feedback: items, nextCursor: null, hasMore: false });

function read(...items: object[]) {
  const log = new FindingLog();
  const ctx = new RowContext(log, 'keep');
  const rows = feedback.page(schemaOf(feedback).parse(body(...items)), ctx).items.map((item) => feedback.row(item, ctx));
  return { rows, findings: log.drain().map((f) => `${f.kind} ${f.detail}`) };
}

describe('feedback', () => {
  it('reads an item of every source and every status the published spec lists', () => {
    const { source, status } = commonShape.properties;
    expect(source.enum.length * status.enum.length).toBeGreaterThan(1);
    for (const s of source.enum) {
      for (const st of status.enum) {
        const item = { ...base, source: s, status: st };
        expect(specProblems('feedback', 200, body(item))).toEqual([]);
        expect(read(item).rows[0], `${s} ${st}`).toMatchObject({ source: s, status: st });
      }
    }
  });

  it('refuses a source or a status the spec does not list', () => {
    for (const item of [{ ...base, source: 'email' }, { ...base, status: 'lost' }, { ...base, source: '' }, { ...base, status: '' }]) {
      expect(specProblems('feedback', 200, body(item))).not.toEqual([]);
      expect(schemaOf(feedback).safeParse(body(item)).success, JSON.stringify(item)).toBe(false);
    }
  });

  it('keeps the file name of a code snippet, and a missing one as null', () => {
    const snippet = { ...base, source: 'code_snippet', code: 'x()', lang: 'ts' };
    const { rows } = read({ ...snippet, id: 'named', filename: 'setup.ts' }, { ...snippet, id: 'unnamed', filename: null });
    expect(rows.map((row) => [row.id, row.filename])).toEqual([
      ['named', 'setup.ts'],
      ['unnamed', null],
    ]);
  });

  it('names an unreadable createdAt with its item id and stores the time as NULL', () => {
    const { rows, findings } = read({ ...base, id: 'f9', createdAt: 'soon' });
    expect(rows[0]!.created_at).toBeNull();
    expect(findings).toEqual([expect.stringMatching(/^invalid_text feedback f9 createdAt: /)]);
  });

  it('keys its rows by the item id, which the page checks compare for repeats', () => {
    const { rows } = read({ ...base, id: 'k1' }, { ...base, id: 'k2' });
    expect(rows.map((row) => row[feedback.keyColumn!])).toEqual(['k1', 'k2']);
  });
});
