/**
 * Read-only SQL on the warehouse from a one-shot command (`query`, and the ledger checks of
 * `prompts`): through the process that holds this data dir's embedded warehouse when one runs,
 * else on the engine opened here (waiting a while for another one-shot command that has it).
 */
import type { OpenWarehouseOptions, QueryLimits, QueryResult, QueryTarget } from '../warehouse/index.js';
import type { CommandContext } from './command-context.js';
import { onStopSignal, signalExitCode } from './stop-signals.js';

/** How long a read waits for the embedded warehouse held by another one-shot command. */
const LOCK_WAIT_MS = 30_000;

/** `command` names the waiting line's sender (`query: waiting up to 30s …`). */
export async function readWarehouse(sql: string, limits: Pick<QueryLimits, 'timeoutMs' | 'maxRows'>, command = 'query'): Promise<QueryResult> {
  return (await throughRunningInstallation(sql, limits)) ?? (await runOneShot(sql, limits, command));
}

/**
 * Asks the process that holds this data dir's embedded warehouse (a running `start`, `worker` or
 * `dashboard`), when there is one: the configuration, the ClickHouse client and the engine are not
 * even loaded. Undefined when none answers (or a ClickHouse server is configured).
 */
async function throughRunningInstallation(sql: string, limits: Pick<QueryLimits, 'timeoutMs' | 'maxRows'>): Promise<QueryResult | undefined> {
  const { dataDirOf, usesClickHouseServer } = await import('../../config/data-dir.js');
  if (usesClickHouseServer(process.env)) return undefined;
  const { queryThroughGateway } = await import('../warehouse/gateway-client.js');
  return queryThroughGateway(dataDirOf(process.env), sql, limits, true);
}

async function runOneShot(sql: string, limits: Pick<QueryLimits, 'timeoutMs' | 'maxRows'>, command: string): Promise<QueryResult> {
  const { loadContext } = await import('./command-context.js');
  // Reading the warehouse never calls the API: the key is not needed (nor checked).
  const { config, logger } = loadContext({ oneShot: true, usesApi: false });
  return runReadOnly(sql, limits, config, logger, command);
}

async function runReadOnly(
  sql: string,
  limits: Pick<QueryLimits, 'timeoutMs' | 'maxRows'>,
  config: CommandContext['config'],
  logger: CommandContext['logger'],
  command: string,
): Promise<QueryResult> {
  // By module, not through the warehouse's index: a query on a current embedded warehouse loads
  // neither the ClickHouse client nor the code that writes.
  const { openEmbeddedForQueries, openWarehouse } = await import('../warehouse/factory.js');
  const { WarehouseLockedError } = await import('../warehouse/errors.js');
  const { runQuery } = await import('../warehouse/read-only-query.js');
  const open = async (lockWait?: OpenWarehouseOptions['lockWait']): Promise<QueryTarget> => {
    const options = { ...config.clickhouse, dataDir: config.dataDir, logger, lockWait };
    // A fresh or older embedded warehouse is opened in full, which creates it and applies the migrations.
    return (config.clickhouse.url === undefined ? await openEmbeddedForQueries(options) : undefined) ?? (await openWarehouse(options));
  };
  let warehouse;
  try {
    warehouse = await open();
  } catch (err) {
    if (!(err instanceof WarehouseLockedError)) throw err;
    // A running mintpipe process holds the embedded warehouse: ask it.
    const { queryThroughGateway } = await import('../warehouse/gateway-client.js');
    const viaGateway = await queryThroughGateway(config.dataDir, sql, limits);
    if (viaGateway) return viaGateway;
    // Another one-shot command has the engine (it serves no gateway): queue for it, saying so.
    warehouse = await open({
      timeoutMs: LOCK_WAIT_MS,
      onWait: (pid) => process.stderr.write(`${command}: waiting up to ${LOCK_WAIT_MS / 1000}s for the embedded warehouse (in use by ${pid === undefined ? 'another process' : `pid ${pid}`})\n`),
    });
  }
  // Ctrl-C stops the query on the engine before the process ends; a second one ends it now.
  const abort = new AbortController();
  const off = onStopSignal((signal) => {
    if (abort.signal.aborted) process.exit(signalExitCode(signal));
    abort.abort();
  });
  try {
    return await runQuery(warehouse, sql, { ...limits, signal: abort.signal });
  } finally {
    off();
    await warehouse.close();
  }
}
