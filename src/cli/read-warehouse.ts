/**
 * Read-only SQL on the warehouse from a one-shot command (`query`, and the ledger checks of
 * `prompts`): through the process that holds this data dir's embedded warehouse when one runs,
 * else on the engine opened here (waiting a while for another one-shot command that has it).
 * Either way the result streams from the engine to the caller's sink, chunk by chunk.
 */
import type { EngineOptions, QueryLimits, QueryResult } from '../warehouse/index.js';
import type { ChunkSink, StreamOutcome } from '../warehouse/read-only-query.js';
import type { ResultFormat } from '../warehouse/result-format.js';
import type { CommandContext } from './command-context.js';
import { onStopSignal, signalExitCode } from './stop-signals.js';

/** How long a read waits for the embedded warehouse held by another one-shot command. */
const LOCK_WAIT_MS = 30_000;

type ReadLimits = Pick<QueryLimits, 'timeoutMs' | 'maxRows'>;

/** The rows of `sql` (at most `maxRows`). `command` names the waiting line's sender (`query: waiting up to 30s …`). */
export async function readWarehouse(sql: string, limits: ReadLimits, command = 'query'): Promise<QueryResult> {
  const { RowsCollector } = await import('../warehouse/rows-collector.js');
  const collector = new RowsCollector();
  const outcome = await streamWarehouse(sql, limits, 'rows', (chunk) => collector.add(chunk), command);
  return collector.result(outcome.cut ? outcome.rows : undefined);
}

/** Streams the result of `sql` in `format` to `write`. */
export async function streamWarehouse(sql: string, limits: ReadLimits, format: ResultFormat, write: ChunkSink, command = 'query'): Promise<StreamOutcome> {
  return (await throughRunningInstallation(sql, limits, format, write)) ?? (await runOneShot(sql, limits, format, write, command));
}

/**
 * Asks the process that holds this data dir's embedded warehouse (a running `start`, `worker` or
 * `dashboard`), when there is one: the configuration, the ClickHouse client and the engine are not
 * even loaded. Undefined when none answers (or a ClickHouse server is configured).
 */
async function throughRunningInstallation(sql: string, limits: ReadLimits, format: ResultFormat, write: ChunkSink): Promise<StreamOutcome | undefined> {
  const { clickhouseUrlOf, dataDirOf } = await import('../../config/data-dir.js');
  const { warehouseEngine } = await import('../warehouse/factory.js');
  // Where the engine is held does not depend on the database, which is known once the configuration is loaded.
  const engine = warehouseEngine({ url: clickhouseUrlOf(process.env), dataDir: dataDirOf(process.env), database: 'mintpipe' });
  if (engine.exclusiveDir === undefined) return undefined;
  const { streamThroughGateway } = await import('../warehouse/gateway-client.js');
  return streamThroughGateway(dataDirOf(process.env), sql, { limits, format }, write, true);
}

async function runOneShot(sql: string, limits: ReadLimits, format: ResultFormat, write: ChunkSink, command: string): Promise<StreamOutcome> {
  const { loadContext } = await import('./command-context.js');
  // Reading the warehouse never calls the API: the key is not needed (nor checked).
  const { config, logger } = loadContext({ oneShot: true, usesApi: false });
  return runReadOnly({ sql, limits, format, write }, config, logger, command);
}

async function runReadOnly(
  query: { sql: string; limits: ReadLimits; format: ResultFormat; write: ChunkSink },
  config: CommandContext['config'],
  logger: CommandContext['logger'],
  command: string,
): Promise<StreamOutcome> {
  const { sql, limits, format, write } = query;
  // By module, not through the warehouse's index: a query on a current embedded warehouse loads
  // neither the ClickHouse client nor the code that writes.
  const { openForQueries } = await import('../warehouse/factory.js');
  const { WarehouseLockedError } = await import('../warehouse/errors.js');
  const { streamQuery } = await import('../warehouse/read-only-query.js');
  const open = (lockWait?: EngineOptions['lockWait']) => openForQueries({ ...config.clickhouse, dataDir: config.dataDir, logger, lockWait });
  let warehouse;
  try {
    warehouse = await open();
  } catch (err) {
    if (!(err instanceof WarehouseLockedError)) throw err;
    // A running mintpipe process holds the embedded warehouse: ask it.
    const { streamThroughGateway } = await import('../warehouse/gateway-client.js');
    const viaGateway = await streamThroughGateway(config.dataDir, sql, { limits, format }, write);
    if (viaGateway) return viaGateway;
    // A start or worker that is starting up will serve one soon, and never lets the engine go.
    const starting = await startingHolder(config, command);
    if (starting === 'served') {
      const viaStarted = await streamThroughGateway(config.dataDir, sql, { limits, format }, write);
      if (viaStarted) return viaStarted;
    }
    // One that never served in that time will not let the engine go either: refuse now.
    warehouse = starting === 'silent' ? await open() : await afterOtherCommand(open, command);
  }
  // Ctrl-C stops the query on the engine before the process ends; a second one ends it now.
  const abort = new AbortController();
  const off = onStopSignal((signal) => {
    if (abort.signal.aborted) process.exit(signalExitCode(signal));
    abort.abort();
  });
  try {
    return await streamQuery(warehouse, sql, { ...limits, format, signal: abort.signal }, write);
  } finally {
    off();
    await warehouse.close();
  }
}

/**
 * A start or worker holds (or is taking) the embedded warehouse and does not serve its gateway yet:
 * waits for the gateway, at most LOCK_WAIT_MS, saying so on stderr after a second (gatewayOfStartingHolder).
 */
export async function startingHolder(config: CommandContext['config'], command: string): Promise<'served' | 'none' | 'silent'> {
  const [{ configuredEngine }, { gatewayOfStartingHolder }] = await Promise.all([import('../warehouse/factory.js'), import('../warehouse/starting-holder.js')]);
  const engineDir = configuredEngine(config).exclusiveDir;
  if (engineDir === undefined) return 'none';
  return gatewayOfStartingHolder(config.dataDir, engineDir, {
    timeoutMs: LOCK_WAIT_MS,
    onWait: (holder) => process.stderr.write(`${command}: waiting up to ${LOCK_WAIT_MS / 1000}s for the ${holder.command} starting up on this data dir (pid ${holder.pid}) to serve the warehouse\n`),
  });
}

/**
 * Another one-shot command has the engine (it serves no gateway, and ends soon): `open` queues for
 * it, at most LOCK_WAIT_MS, saying so on stderr (`query: waiting up to 30s …`).
 */
export function afterOtherCommand<T>(open: (lockWait: NonNullable<EngineOptions['lockWait']>) => Promise<T>, command: string): Promise<T> {
  return open({
    timeoutMs: LOCK_WAIT_MS,
    onWait: (pid) => process.stderr.write(`${command}: waiting up to ${LOCK_WAIT_MS / 1000}s for the embedded warehouse (in use by ${pid === undefined ? 'another process' : `pid ${pid}`})\n`),
  });
}
