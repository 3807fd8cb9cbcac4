/**
 * The chain plan of a prompt file, decided from its rows alone: how rows are named in problems,
 * and how rows refused before planning (by line, with their chain) refuse the later rows of their
 * chain and only those. (test/prompts/prompts-chains.unit.test.ts covers chains read from files.)
 */
import { describe, expect, it } from 'vitest';
import { planChains } from '../../src/prompts/plan-chains.js';

const p = 'docs';

describe('naming rows in problems', () => {
  it('names a row by its position when it has no line', () => {
    const plan = planChains(
      [
        { projectId: p, chain: 'c', jobId: 'job-1', prompt: 'first' },
        { projectId: 'other', chain: 'c', prompt: 'second' },
        { projectId: p, chain: 'c', prompt: 'third' },
      ],
      {},
    );
    expect(plan.problems).toEqual([
      { index: 1, reason: 'chain "c": projectId "other" differs from the chain\'s first row (row 1, "docs")' },
      { index: 2, reason: 'chain "c": not sent, because row 2 of the chain was refused' },
    ]);
  });

  it('names a row by its line when it has one', () => {
    const plan = planChains([
      { projectId: p, chain: 'c', jobId: 'job-1', prompt: 'first', line: 4 },
      { projectId: p, chain: 'c', jobId: 'job-2', prompt: 'second', line: 7 },
    ]);
    expect(plan.problems).toEqual([
      { index: 1, reason: 'chain "c": a follow-up must not name a jobId (got "job-2"): the chain\'s first row, line 4, starts or names its agent job' },
    ]);
  });

  it('names a chain\'s refused first row when the chain cannot start', () => {
    const plan = planChains([
      { projectId: p, chain: 'c', prompt: 'create', line: 2 },
      { projectId: p, chain: 'c', prompt: 'follow up', line: 3 },
    ]);
    expect(plan.problems.map((x) => x.reason)).toEqual([expect.stringMatching(/--allow-create/), 'chain "c": not sent, because its first row (line 2) was refused']);
  });
});

describe('rows refused before planning', () => {
  it('refuse the rows of their chain after the earliest refused line, and only those', () => {
    const plan = planChains(
      [
        { projectId: p, chain: 'c', jobId: 'job-1', prompt: 'before', line: 1 },
        { projectId: p, chain: 'c', prompt: 'after', line: 5 },
        { projectId: p, chain: 'd', jobId: 'job-2', prompt: 'another chain', line: 6 },
        { projectId: p, jobId: 'job-3', prompt: 'no chain', line: 7 },
      ],
      {
        refused: [
          { line: 4, reason: 'bad', chain: 'c' },
          { line: 3, reason: 'bad', chain: 'c' },
          { line: 2, reason: 'bad' },
        ],
      },
    );
    expect(plan.prompts.map((x) => x.prompt)).toEqual(['before', 'another chain', 'no chain']);
    expect(plan.problems).toEqual([{ index: 1, reason: 'chain "c": not sent, because line 3 of the chain was refused' }]);
  });

  it('refuse a chain whose first good row comes after the refused line, and every row after it', () => {
    const plan = planChains(
      [
        { projectId: p, chain: 'c', prompt: 'after', line: 3 },
        { projectId: p, chain: 'c', prompt: 'and after', line: 4 },
      ],
      { refused: [{ line: 2, reason: 'bad', chain: 'c' }], allowCreate: true },
    );
    expect(plan.prompts).toEqual([]);
    const reason = 'chain "c": not sent, because line 2 of the chain was refused';
    expect(plan.problems).toEqual([
      { index: 0, reason },
      { index: 1, reason },
    ]);
  });

  it('leave a row on the refused line itself, and rows without a line, to the plan', () => {
    const plan = planChains(
      [
        { projectId: p, chain: 'c', jobId: 'job-1', prompt: 'same line', line: 2 },
        { projectId: p, chain: 'c', prompt: 'no line' },
        { projectId: p, chain: 'e', jobId: 'job-1', prompt: 'no line, first' },
        { projectId: p, chain: 'd', jobId: 'job-2', prompt: 'first at the line', line: 9 },
        { projectId: p, chain: 'd', prompt: 'then at it too', line: 9 },
      ],
      {
        refused: [
          { line: 2, reason: 'bad', chain: 'c' },
          { line: 1, reason: 'bad', chain: 'e' },
          { line: 9, reason: 'bad', chain: 'd' },
        ],
      },
    );
    expect(plan.problems).toEqual([]);
    expect(plan.prompts.map((x) => [x.prompt, x.kind, x.head])).toEqual([
      ['same line', 'message', 0],
      ['no line', 'message', 0],
      ['no line, first', 'message', 2],
      ['first at the line', 'message', 3],
      ['then at it too', 'message', 3],
    ]);
  });
});
