/**
 * Which datasets a night plans per project: assistant threads (one request per conversation) only
 * for the projects that asked for them, right after `assistant`, however the dataset list names
 * them. (test/export/export-windows.unit.test.ts covers the windows of a night.)
 */
import { describe, expect, it } from 'vitest';
import { projectDatasets } from '../../src/export/nightly-plan.js';

describe('the datasets a night plans for a project', () => {
  const datasets = ['views', 'assistant-threads', 'assistant', 'searches'] as const;

  it('leaves assistant threads out for a project that did not ask for them, even when the list names them', () => {
    expect(projectDatasets('docs', { datasets: [...datasets], assistantThreads: [] })).toEqual(['views', 'assistant', 'searches']);
  });

  it('puts assistant threads right after assistant, once, for a project that asked for them', () => {
    expect(projectDatasets('docs', { datasets: [...datasets], assistantThreads: ['docs'] })).toEqual(['views', 'assistant', 'assistant-threads', 'searches']);
  });

  it('plans no threads without assistant', () => {
    expect(projectDatasets('docs', { datasets: ['views', 'assistant-threads'], assistantThreads: ['docs'] })).toEqual(['views']);
  });
});
