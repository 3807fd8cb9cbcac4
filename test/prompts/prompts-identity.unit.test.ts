import { describe, expect, it } from 'vitest';
import type { PromptInput } from '../../src/prompts/prompt-input.js';
import { promptIdentities } from '../../src/prompts/prompt-identity.js';

const rows: PromptInput[] = [
  { projectId: 'p', jobId: 'job-1', prompt: 'update the quickstart' },
  { projectId: 'p', jobId: 'job-2', prompt: 'update the quickstart' },
  { projectId: 'p', jobId: 'job-1', prompt: 'update the quickstart' },
  { projectId: 'p', chain: 'sdk', prompt: 'update the quickstart' },
  { projectId: 'p', prompt: 'update the quickstart' },
];

describe('a prompt identity', () => {
  it('is the same for the same rows, whatever file they come in', () => {
    expect(promptIdentities(rows)).toEqual(promptIdentities(rows.map((r) => ({ ...r }))));
    // A line added elsewhere (a fixed line) leaves every other row's identity as it was.
    const withFixedLine = [rows[0]!, { projectId: 'p', jobId: 'job-9', prompt: 'fixed' }, ...rows.slice(1)];
    expect(promptIdentities(withFixedLine).filter((_, i) => i !== 1)).toEqual(promptIdentities(rows));
  });

  it('tells apart the project, the job, the chain, a create, and the second occurrence of the same row', () => {
    const ids = promptIdentities(rows);
    expect(new Set(ids).size).toBe(rows.length);
    expect(promptIdentities([{ ...rows[0]!, projectId: 'q' }])[0]).not.toBe(ids[0]);
    expect(promptIdentities([{ ...rows[0]!, prompt: 'update the quickstart!' }])[0]).not.toBe(ids[0]);
    // The first occurrence of a repeated row is the row on its own.
    expect(promptIdentities([rows[0]!])[0]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
  });
});
