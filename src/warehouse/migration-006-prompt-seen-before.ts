/**
 * `prompt_events` records, on a prompt's `sending` mark, the agent job as last observed before the
 * send (`seen_before`: JSON `{status, prLink, archivedAt}`; '' for a create and on other events).
 * A prompt recovered from the ledger after Redis lost it can then still tell a job that changed
 * after the send (so the message was most likely received) from one that did not: before, a
 * recovered prompt knew nothing of the job before the send, and `resend --ambiguous` resent
 * prompts the upstream had processed without a warning.
 *
 * Upgrade in place: ADD COLUMN with a default; the public view is unchanged.
 */
import type { Migration } from './migration.js';

export const promptSeenBefore: Migration = {
  version: 6,
  name: 'prompt-seen-before',
  statements: (db) => [`ALTER TABLE ${db}.prompt_events ADD COLUMN IF NOT EXISTS seen_before String DEFAULT ''`],
};
