/**
 * Prompts that create agent jobs, chains of prompts, and the prompt ledger of record.
 *
 * `prompt_events` gains `kind` (`create` or `message`; existing events are messages) and `chain`
 * (the file's chain key), which `prompt_outcomes` shows, appended after its first columns so
 * readers of version 1 keep working. It also gains what a batch is rebuilt from when Redis lost it
 * (the ledger, read by recovery, not by the public view): the prompt's `identity` (its row, not its
 * file), its `prompt` text (on `queued` events only), its `position` and `line` in the file, and
 * its send `attempt`.
 *
 * Upgrade in place: only ADD COLUMN with defaults; the view is replaced by one that returns the
 * same rows with two more columns.
 */
import type { Migration } from './migration.js';

export const promptChainsSchema: Migration = {
  version: 3,
  name: 'prompt-chains',
  statements: (db) => [
    `ALTER TABLE ${db}.prompt_events ADD COLUMN IF NOT EXISTS kind LowCardinality(String) DEFAULT 'message'`,
    `ALTER TABLE ${db}.prompt_events ADD COLUMN IF NOT EXISTS chain Nullable(String)`,
    `ALTER TABLE ${db}.prompt_events ADD COLUMN IF NOT EXISTS identity String DEFAULT ''`,
    `ALTER TABLE ${db}.prompt_events ADD COLUMN IF NOT EXISTS prompt String DEFAULT ''`,
    `ALTER TABLE ${db}.prompt_events ADD COLUMN IF NOT EXISTS position UInt32 DEFAULT 0`,
    `ALTER TABLE ${db}.prompt_events ADD COLUMN IF NOT EXISTS line Nullable(UInt32)`,
    `ALTER TABLE ${db}.prompt_events ADD COLUMN IF NOT EXISTS attempt UInt32 DEFAULT 0`,

    `CREATE OR REPLACE VIEW ${db}.prompt_outcomes AS
    SELECT
      batch_id,
      prompt_id,
      tupleElement(latest, 1) AS project_id,
      tupleElement(latest, 2) AS job_id,
      tupleElement(latest, 3) AS status,
      tupleElement(latest, 4) AS pr_link,
      tupleElement(latest, 5) AS sent_at,
      tupleElement(latest, 6) AS finished_at,
      tupleElement(latest, 7) AS polls,
      tupleElement(latest, 8) AS error,
      tupleElement(latest, 9) AS kind,
      tupleElement(latest, 10) AS chain
    FROM (
      SELECT
        batch_id,
        prompt_id,
        argMax(tuple(project_id, job_id, status, pr_link, sent_at, finished_at, polls, error, kind, chain), (version, recorded_at)) AS latest
      FROM ${db}.prompt_events
      GROUP BY batch_id, prompt_id
    )`,
  ],
};
