/**
 * What this process's exports, prompts and API calls did: counters and histograms fed by the
 * observers the workers and the API client are given. Registered in the order they are exposed.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ApiEvent } from '../api/index.js';
import type { ExportObserver } from '../export/export-window.js';
import type { PromptObserver } from '../prompts/prompt-deps.js';

type Registers = Registry[];

export function exportCounters(registers: Registers): Required<ExportObserver> {
  const pagesFetched = new Counter({
    name: 'mintpipe_pages_fetched_total',
    help: 'Visitor pages fetched from the analytics API',
    labelNames: ['project'],
    registers,
  });
  const rowsLoaded = new Counter({
    name: 'mintpipe_rows_loaded_total',
    help: 'Visitor rows loaded into the warehouse',
    labelNames: ['project'],
    registers,
  });
  return {
    pageFetched: (projectId) => pagesFetched.inc({ project: projectId }),
    rowsLoaded: (projectId, rows) => rowsLoaded.inc({ project: projectId }, rows),
  };
}

export function apiCounters(registers: Registers): (event: ApiEvent) => void {
  const apiDuration = new Histogram({
    name: 'mintpipe_api_request_duration_seconds',
    help: 'Mintlify API attempts by operation and outcome (ok, retry, error)',
    labelNames: ['op', 'outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const retries = new Counter({
    name: 'mintpipe_api_retries_total',
    help: 'Mintlify API attempts that failed and were retried, by reason',
    labelNames: ['op', 'reason'],
    registers,
  });
  const rateLimited = new Counter({
    name: 'mintpipe_api_rate_limited_total',
    help: 'Mintlify API answers with status 429',
    labelNames: ['op'],
    registers,
  });
  return (event) => {
    apiDuration.observe({ op: event.op, outcome: event.outcome }, event.durationMs / 1000);
    if (event.outcome === 'retry') retries.inc({ op: event.op, reason: event.reason ?? 'unknown' });
    if (event.status === 429) rateLimited.inc({ op: event.op });
  };
}

export function promptCounters(registers: Registers): Required<PromptObserver> {
  const promptTransitions = new Counter({
    name: 'mintpipe_prompt_status_changes_total',
    help: 'Prompts that entered a status, in this process',
    labelNames: ['status'],
    registers,
  });
  const promptSends = new Counter({ name: 'mintpipe_prompt_sends_total', help: 'Prompt messages sent', registers });
  const promptPolls = new Counter({ name: 'mintpipe_prompt_polls_total', help: 'Agent job polls', registers });

  return {
    statusChanged: (status) => promptTransitions.inc({ status }),
    polled: () => promptPolls.inc(),
    sent: () => promptSends.inc(),
  };
}
