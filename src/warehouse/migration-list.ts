/**
 * Every migration, in order: a module of its own (plain SQL definitions, no client), so a reader
 * can tell whether a warehouse is current without loading the code that applies migrations.
 */
import { initialSchema } from './migration-001-initial.js';
import { datasetsSchema } from './migration-002-datasets.js';
import { promptChainsSchema } from './migration-003-prompt-chains.js';
import { partsCleanup } from './migration-004-parts-cleanup.js';
import { promptSentBy } from './migration-005-prompt-sent-by.js';
import { promptSeenBefore } from './migration-006-prompt-seen-before.js';
import { promptKey } from './migration-007-prompt-key.js';
import { triageItems } from './migration-008-triage-items.js';
import type { Migration } from './migration.js';

/** Append; never edit one that has shipped. */
export const migrations: readonly Migration[] = [initialSchema, datasetsSchema, promptChainsSchema, partsCleanup, promptSentBy, promptSeenBefore, promptKey, triageItems];
