/**
 * One start or worker per embedded warehouse, decided before anything begins: a second one on a
 * data dir whose warehouse a live start or worker holds (or is taking) exits 1 at once, naming it,
 * before any banner, Redis or engine. Otherwise it claims the directory, so that one-shot commands
 * arriving while it starts up leave the engine to it.
 */
import type { MintpipeConfig } from '../../config/index.js';
import { MintpipeError } from '../errors.js';
import { claimDirectory, declareCommand, longRunningHolder, releaseClaim, type LongRunningCommand } from '../warehouse/embedded-lock.js';
import { configuredEngine } from '../warehouse/factory.js';

export function claimEmbeddedWarehouse(config: Pick<MintpipeConfig, 'dataDir' | 'clickhouse'>, command: LongRunningCommand): void {
  declareCommand(command);
  // An engine every process opens itself has nothing to claim.
  const path = configuredEngine(config).exclusiveDir;
  if (path === undefined) return;
  const holder = longRunningHolder(path) ?? claimDirectory(path);
  if (holder !== undefined) {
    throw new MintpipeError(
      `the embedded warehouse in ${path} is in use by ${holder.command} pid ${holder.pid} (one start or worker per data dir): stop it, or give this ${command} another MINTPIPE_DATA_DIR or a CLICKHOUSE_URL`,
    );
  }
  process.once('exit', () => releaseClaim(path));
}
