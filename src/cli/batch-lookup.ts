/**
 * A batch Redis does not know: the ledger tells a lost batch (the error stands, naming `prompts
 * recover`) from one never submitted to this installation (a mistyped id, a usage error).
 */
import { MintpipeError, UsageError } from '../errors.js';

export const UNKNOWN_BATCH = 'neither Redis nor the ledger knows it (check the id, MINTPIPE_QUEUE_PREFIX and MINTPIPE_DATA_DIR)';

/**
 * For a batch Redis does not know: lost (the ledger has it: the error stands, exit 1, naming
 * `prompts recover`) or never submitted to this installation (a mistyped id: exit 2).
 */
export function whenMissing(batchId: string): (err: unknown) => Promise<never> {
  return async (err) => {
    const { BatchNotFoundError } = await import('../prompts/index.js');
    if (!(err instanceof BatchNotFoundError)) throw err;
    const known = await ledgerHas(batchId);
    if (known === false) throw new UsageError(`batch ${batchId}: no such batch: ${UNKNOWN_BATCH}`);
    if (known instanceof Error) throw unreadableLedger(batchId, known);
    throw err;
  };
}

/** Not in Redis, and the ledger that would tell a lost batch from a mistyped id cannot be read. */
function unreadableLedger(batchId: string, cause: Error): MintpipeError {
  return new MintpipeError(`batch ${batchId}: not in Redis (lost, or a mistyped id), and the ledger could not be read to tell which: ${cause.message}`, { cause });
}

/** Whether the ledger has any event of the batch, or why it could not be read. */
export async function ledgerHas(batchId: string): Promise<boolean | Error> {
  const [{ readWarehouse }, { batchEventCountSql }] = await Promise.all([import('./read-warehouse.js'), import('../warehouse/prompt-ledger.js')]);
  try {
    const result = await readWarehouse(batchEventCountSql(batchId), { timeoutMs: 10_000, maxRows: 1 }, 'prompts');
    return Number(result.rows[0]?.n) > 0;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}
