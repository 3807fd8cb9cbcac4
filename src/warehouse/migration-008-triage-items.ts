/**
 * Lineage of triage: `prompt_events.sources` holds the ids of the reader input behind a prompt
 * (feedback ids, conversation ids, search terms), written with its `queued` event when its batch
 * starts; the view `triage_items` has one row per source item of each triage prompt (a keyed
 * prompt with sources; its key is `recipe:project:subject`) with the prompt's latest outcome: its
 * agent job, status and pull request.
 *
 * Upgrade in place: ADD COLUMN with a default and a new view.
 */
import type { Migration } from './migration.js';

export const triageItems: Migration = {
  version: 8,
  name: 'triage-items',
  statements: (db) => [
    `ALTER TABLE ${db}.prompt_events ADD COLUMN IF NOT EXISTS sources Array(String) DEFAULT []`,
    `CREATE OR REPLACE VIEW ${db}.triage_items AS
    SELECT
      e.recipe AS recipe,
      e.project AS project_id,
      substring(e.t_key, length(e.recipe) + length(e.project) + 3) AS subject,
      item_id,
      e.batch_id AS batch_id,
      e.prompt_id AS prompt_id,
      o.job_id AS job_id,
      o.status AS status,
      o.pr_link AS pr_link,
      o.sent_at AS sent_at,
      o.finished_at AS finished_at,
      e.submitted_at AS submitted_at
    FROM (
      SELECT
        batch_id,
        prompt_id,
        any(project_id) AS project,
        any(key) AS t_key,
        splitByChar(':', any(key))[1] AS recipe,
        argMaxIf(sources, (version, recorded_at), length(sources) > 0) AS t_sources,
        min(recorded_at) AS submitted_at
      FROM ${db}.prompt_events
      WHERE key != ''
      GROUP BY batch_id, prompt_id
      HAVING length(t_sources) > 0
    ) AS e
    ARRAY JOIN e.t_sources AS item_id
    LEFT JOIN ${db}.prompt_outcomes AS o ON o.batch_id = e.batch_id AND o.prompt_id = e.prompt_id`,
  ],
};
