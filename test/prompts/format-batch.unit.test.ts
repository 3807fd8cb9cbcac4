import { describe, expect, it } from 'vitest';
import type { BatchStatus, PromptSummary } from '../../src/prompts/batch-status.js';
import { formatBatchReport } from '../../src/prompts/format-batch.js';
import { PROMPT_STATUSES } from '../../src/prompts/prompt-status.js';

function prompt(over: Partial<PromptSummary>): PromptSummary {
  return {
    promptId: 'a'.repeat(20),
    position: 0,
    line: 1,
    projectId: 'acme',
    jobId: '',
    kind: 'message',
    chain: null,
    status: 'queued',
    held: false,
    heldBehind: null,
    done: false,
    prLink: null,
    sentAt: null,
    finishedAt: null,
    polls: 0,
    error: null,
    sentBy: null,
    ...over,
  };
}

function batch(prompts: PromptSummary[], over: Partial<BatchStatus> = {}): BatchStatus {
  const byStatus = Object.fromEntries(PROMPT_STATUSES.map((s) => [s, prompts.filter((p) => p.status === s).length])) as BatchStatus['byStatus'];
  return {
    batchId: '0123456789abcdef',
    source: 'in.jsonl',
    total: prompts.length,
    done: prompts.filter((p) => p.done).length,
    held: 0,
    byStatus,
    prompts,
    failures: prompts.filter((p) => p.done && p.status !== 'completed'),
    ...over,
  };
}

describe('the batch report', () => {
  it("shows an upstream error's and a file name's control characters as escapes, one line each", () => {
    const failed = prompt({ status: 'rejected', done: true, jobId: 'job-1', error: 'bad\u001b]0;PWNED\u0007\u001b[2J\nsecond' });
    const lines = formatBatchReport(batch([failed], { source: 'in\u001b[31m.jsonl' })).split('\n');
    expect(lines[0]).toBe(String.raw`batch 0123456789abcdef (in\x1b[31m.jsonl): 1 prompt, 1 final`);
    expect(lines.at(-1)).toMatch(/ {2}bad\\x1b\]0;PWNED\\x07\\x1b\[2J\\nsecond$/);
    expect(lines.join('\n')).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  it('counts one prompt in the singular', () => {
    expect(formatBatchReport(batch([prompt({ status: 'completed', done: true, jobId: 'job-1' })])).split('\n')[0]).toBe('batch 0123456789abcdef (in.jsonl): 1 prompt, 1 final');
  });

  it("names a chain's agent job for a step that never learned it (cancelled before its send)", () => {
    const first = prompt({ promptId: 'b'.repeat(20), kind: 'create', chain: 'docs', jobId: 'agent-7', status: 'completed', done: true });
    const cancelled = prompt({ promptId: 'c'.repeat(20), line: 2, position: 1, chain: 'docs', status: 'cancelled', done: true, error: 'cancelled' });
    const report = formatBatchReport(
      batch([first, cancelled], { chains: [{ chain: 'docs', projectId: 'acme', jobId: 'agent-7', steps: 2, completed: 1, state: 'stopped', prLinks: [] }] }),
    );
    expect(report).toContain(`  ${'c'.repeat(20)}  line 2  acme/agent-7 chain "docs"  cancelled  cancelled`);
  });

  it('lists rows sent before by an earlier batch, and every prompt when asked', () => {
    const sentBefore = prompt({ status: 'completed', done: true, jobId: 'job-1', sentAt: '2026-11-25T10:00:00.000Z', sentBy: 'fedcba9876543210' });
    const sentNow = prompt({ promptId: 'd'.repeat(20), line: 2, position: 1, status: 'polling', jobId: 'job-2', sentAt: '2026-11-25T11:00:00.000Z' });
    const plain = formatBatchReport(batch([sentBefore, sentNow])).split('\n');
    expect(plain.filter((l) => l.includes('sent by batch'))).toEqual(['  line 1  acme/job-1  completed  sent by batch fedcba9876543210 at 2026-11-25T10:00:00.000Z']);
    expect(plain).not.toContain('prompts (2):');
    const every = formatBatchReport(batch([sentBefore, sentNow]), { everyPrompt: true }).split('\n');
    expect(every.slice(every.indexOf('prompts (2):') + 1)).toEqual([
      `  ${'a'.repeat(20)}  line 1  acme/job-1  completed  sent 2026-11-25T10:00:00.000Z by batch fedcba9876543210`,
      `  ${'d'.repeat(20)}  line 2  acme/job-2  polling  sent 2026-11-25T11:00:00.000Z`,
    ]);
  });
});
