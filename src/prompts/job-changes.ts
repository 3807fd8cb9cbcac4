/** What changed on an agent job between the look before a send and one after: a sign it ran. */
import type { JobSnapshot } from './prompt-record.js';

/** The names of the fields that differ, as a message names them (`status completed → failed`). */
export function jobChanged(before: JobSnapshot, after: JobSnapshot): string[] {
  const changes: string[] = [];
  if (after.status !== before.status) changes.push(`status ${before.status} → ${after.status}`);
  if (after.prLink !== before.prLink) changes.push(`PR link ${before.prLink ?? 'none'} → ${after.prLink ?? 'none'}`);
  // A snapshot taken before archivedAt was recorded does not say: not a change.
  if (before.archivedAt !== undefined && after.archivedAt !== undefined && after.archivedAt !== before.archivedAt) {
    changes.push(`archivedAt ${before.archivedAt ?? 'none'} → ${after.archivedAt ?? 'none'}`);
  }
  return changes;
}
