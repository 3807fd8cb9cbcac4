/**
 * `prompt_events` records which batch a prompt's state was taken from (`sent_by`): a row that an
 * earlier batch sent is not sent again by a later batch with the same row, which takes over that
 * batch's outcome. Without it, a third batch took its state from the second one and named the
 * second as the sender (it never sent), and each such hand-down added another "(sent by …)" to
 * the error; a batch recovered after Redis lost it forgot the name. '' when the batch itself did
 * the work.
 *
 * Upgrade in place: ADD COLUMN with a default; the public view is unchanged.
 */
import type { Migration } from './migration.js';

export const promptSentBy: Migration = {
  version: 5,
  name: 'prompt-sent-by',
  statements: (db) => [`ALTER TABLE ${db}.prompt_events ADD COLUMN IF NOT EXISTS sent_by String DEFAULT ''`],
};
