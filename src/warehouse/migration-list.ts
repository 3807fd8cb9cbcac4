/**
 * Every migration, in order: the warehouse's own (a module each: plain SQL definitions, no client,
 * so a reader can tell whether a warehouse is current without loading the code that applies them)
 * and those of the datasets that carry their own tables (src/datasets/).
 */
import { DATASET_MIGRATIONS } from '../datasets/index.js';
import { initialSchema } from './migration-001-initial.js';
import { datasetsSchema } from './migration-002-datasets.js';
import { promptChainsSchema } from './migration-003-prompt-chains.js';
import { partsCleanup } from './migration-004-parts-cleanup.js';
import { promptSentBy } from './migration-005-prompt-sent-by.js';
import { promptSeenBefore } from './migration-006-prompt-seen-before.js';
import { promptKey } from './migration-007-prompt-key.js';
import { triageItems } from './migration-008-triage-items.js';
import type { Migration } from './migration.js';

/** The warehouse's own. Append; never edit one that has shipped. */
const shipped: readonly Migration[] = [initialSchema, datasetsSchema, promptChainsSchema, partsCleanup, promptSentBy, promptSeenBefore, promptKey, triageItems];

/**
 * Sorted by version, which must run 1, 2, 3, … : a twin would be recorded as applied without
 * running, and a gap reads as a warehouse that is never current. Checked on load, so a dataset
 * that claims a taken or a skipped version fails every command and test at once.
 */
export function inVersionOrder(list: readonly Migration[]): Migration[] {
  const sorted = [...list].sort((a, b) => a.version - b.version);
  sorted.forEach((migration, i) => {
    if (migration.version !== i + 1) {
      throw new TypeError(`migration "${migration.name}" has version ${migration.version} where ${i + 1} is next (versions run 1, 2, 3, … with no gap or twin)`);
    }
  });
  return sorted;
}

export const migrations: readonly Migration[] = inVersionOrder([...shipped, ...DATASET_MIGRATIONS]);
