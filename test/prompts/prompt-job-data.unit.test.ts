import { describe, expect, it } from 'vitest';
import { batchIdFor, promptIdFor } from '../../src/prompts/prompt-ids.js';
import { InvalidJobDataError, parsePromptQueueJob } from '../../src/prompts/prompt-job-data.js';

const prompt = { projectId: 'acme', jobId: 'job-1', prompt: 'Fix the broken link' };

describe('prompts-queue job data', () => {
  it('accepts the jobs mintpipe itself adds, with ids as it makes them', () => {
    const batchId = batchIdFor([prompt]);
    const promptId = promptIdFor(batchId, 0, prompt);
    expect(parsePromptQueueJob('prompt', { batchId, promptId, attempt: 3 })).toEqual({ name: 'prompt', data: { batchId, promptId, attempt: 3 } });
    expect(parsePromptQueueJob('batch', { batchId })).toEqual({ name: 'batch', data: { batchId } });
    const forced = batchIdFor([prompt], 'salt');
    expect(parsePromptQueueJob('batch', { batchId: forced }).data).toEqual({ batchId: forced });
  });

  it('refuses bad data with one line naming each bad field, and never retries it', () => {
    const attempt = (): unknown => parsePromptQueueJob('prompt', { batchId: 'zz', promptId: 7, attempt: 1.5 });
    expect(attempt).toThrow(InvalidJobDataError);
    try {
      attempt();
    } catch (err) {
      const error = err as InvalidJobDataError;
      expect(error.retryable).toBe(false);
      expect(error.message).toMatch(/^bad "prompt" job data: batchId: expected a batch id \(16 hex digits\); promptId: .*expected string.*; attempt: .*int/);
      expect(error.message).not.toContain('\n');
    }
  });

  it('refuses unknown job names and fields, quoting at most 40 characters of them', () => {
    expect(() => parsePromptQueueJob('x'.repeat(500), {})).toThrow(/^unknown job name "x{40}…" \(expected "prompt" or "batch"\)$/);
    expect(() => parsePromptQueueJob('batch', { batchId: '0123456789abcdef', extra: 1 })).toThrow(/data: unexpected field: "extra"/);
    expect(() => parsePromptQueueJob('batch', 'a string')).toThrow(/data: .*expected object/);
  });
});
