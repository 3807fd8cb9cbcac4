/**
 * Read-only SQL over the ledger (`prompt_events`) for the earlier prompts of query rows' keys
 * (dedupe-keys.ts decides from them): one row per prompt, with when it last reached `sending` or a
 * state after it (0: never), its latest status and its latest event. The CLI runs it through the
 * same read path as `query`, which takes SQL only: the keys go in as literals.
 */
import { stringLiteral } from './sql-text.js';

/** States a prompt is only in once its POST may have gone out. */
export const SENT_STATUSES = ['sending', 'polling', 'completed', 'archived', 'failed', 'timed_out', 'ambiguous'] as const;

export interface KeySendRow {
  k_project_id: string;
  k_key: string;
  k_batch_id: string;
  k_prompt_id: string;
  k_sent_ms: number | string;
  k_status: string;
  k_last_ms: number | string;
}

export function keySendsSql(keys: readonly string[]): string {
  const list = keys.map(stringLiteral).join(', ');
  const sent = SENT_STATUSES.map(stringLiteral).join(', ');
  // Output names carry `k_`: ClickHouse aliases are global, and `status` would shadow the column.
  return `SELECT project_id AS k_project_id, key AS k_key, batch_id AS k_batch_id, prompt_id AS k_prompt_id,
       toUnixTimestamp64Milli(maxIf(recorded_at, status IN (${sent}))) AS k_sent_ms,
       argMax(status, (version, recorded_at)) AS k_status,
       toUnixTimestamp64Milli(max(recorded_at)) AS k_last_ms
     FROM prompt_events
     WHERE key IN (${list})
     GROUP BY project_id, key, batch_id, prompt_id
     ORDER BY k_project_id, k_key, k_batch_id, k_prompt_id`;
}
