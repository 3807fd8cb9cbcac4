/**
 * `prompt_events` records a prompt's `key`: the identity a row from a query (`prompts send
 * --from-query`, triage recipes) gives itself, so a later run with the same key is not sent again
 * within its dedupe window. '' for file rows, which keep their identity by content.
 *
 * Upgrade in place: ADD COLUMN with a default; the public view is unchanged.
 */
import type { Migration } from './migration.js';

export const promptKey: Migration = {
  version: 7,
  name: 'prompt-key',
  statements: (db) => [`ALTER TABLE ${db}.prompt_events ADD COLUMN IF NOT EXISTS key String DEFAULT ''`],
};
