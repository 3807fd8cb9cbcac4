/**
 * `mintpipe query "SQL"`: read-only SQL on the warehouse (SELECT, WITH, UNION, SHOW, DESCRIBE,
 * EXPLAIN), judged by the engine's own parse and run read-only under a time, row and memory limit.
 */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { OpenWarehouseOptions, QueryLimits, QueryResult, QueryTarget } from '../../warehouse/index.js';
import type { CommandContext } from '../command-context.js';

const FORMATS = ['table', 'json', 'csv'] as const;
/** How long `query` waits for the embedded warehouse held by another one-shot command. */
const LOCK_WAIT_MS = 30_000;

interface QueryFlags {
  format: string;
  timeout: string;
  maxRows: string;
}

export function register(program: Command): void {
  program
    .command('query')
    .description('run read-only SQL on the warehouse (views: visitors, page_views, feedback, assistant_conversations, searches, data_quality, prompt_outcomes, export_runs, …)')
    .argument('<sql>', 'one SELECT (WITH, UNION…), SHOW, DESCRIBE or EXPLAIN statement')
    .option('--format <format>', `output: ${FORMATS.join(', ')}`, 'table')
    .option('--timeout <duration>', 'stop the query after this long (30s, 500ms, 2m; a bare number is seconds)', '30s')
    .option('--max-rows <n>', 'return at most this many rows (says so on stderr when it cuts)', '100000')
    .action(async (sql: string, flags: QueryFlags) => {
      if (!(FORMATS as readonly string[]).includes(flags.format)) {
        throw new UsageError(`--format: expected ${FORMATS.join(', ')}, got "${flags.format}"`);
      }
      // Loaded here, not at the top: `--help` and usage errors load only commander.
      const { parseMaxRows, parseQueryTimeout } = await import('../../warehouse/query-limits.js');
      const limits = { timeoutMs: parseQueryTimeout(flags.timeout), maxRows: parseMaxRows(flags.maxRows) };
      const result = (await throughRunningInstallation(sql, limits)) ?? (await runOneShot(sql, limits));
      const { formatRows } = await import('../../warehouse/format-rows.js');
      process.stdout.write(`${formatRows(result, flags.format as (typeof FORMATS)[number])}\n`);
      if (result.truncatedAt !== undefined) {
        process.stderr.write(`query: showing the first ${result.truncatedAt} rows; the result has more (raise --max-rows or narrow the query)\n`);
      }
    });
}

/**
 * Asks the process that holds this data dir's embedded warehouse (a running `start`, `worker` or
 * `dashboard`), when there is one: the configuration, the ClickHouse client and the engine are not
 * even loaded. Undefined when none answers (or a ClickHouse server is configured).
 */
async function throughRunningInstallation(sql: string, limits: Pick<QueryLimits, 'timeoutMs' | 'maxRows'>): Promise<QueryResult | undefined> {
  const { dataDirOf, usesClickHouseServer } = await import('../../../config/data-dir.js');
  if (usesClickHouseServer(process.env)) return undefined;
  const { queryThroughGateway } = await import('../../warehouse/gateway-client.js');
  return queryThroughGateway(dataDirOf(process.env), sql, limits, true);
}

async function runOneShot(sql: string, limits: Pick<QueryLimits, 'timeoutMs' | 'maxRows'>): Promise<QueryResult> {
  const { loadContext } = await import('../command-context.js');
  const { config, logger } = loadContext({ oneShot: true });
  return runReadOnly(sql, limits, config, logger);
}

async function runReadOnly(
  sql: string,
  limits: Pick<QueryLimits, 'timeoutMs' | 'maxRows'>,
  config: CommandContext['config'],
  logger: CommandContext['logger'],
): Promise<QueryResult> {
  // By module, not through the warehouse's index: a query on a current embedded warehouse loads
  // neither the ClickHouse client nor the code that writes.
  const { openEmbeddedForQueries, openWarehouse } = await import('../../warehouse/factory.js');
  const { WarehouseLockedError } = await import('../../warehouse/errors.js');
  const { runQuery } = await import('../../warehouse/read-only-query.js');
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
    const { queryThroughGateway } = await import('../../warehouse/gateway-client.js');
    const viaGateway = await queryThroughGateway(config.dataDir, sql, limits);
    if (viaGateway) return viaGateway;
    // Another one-shot command has the engine (it serves no gateway): queue for it, saying so.
    warehouse = await open({
      timeoutMs: LOCK_WAIT_MS,
      onWait: (pid) => process.stderr.write(`query: waiting up to ${LOCK_WAIT_MS / 1000}s for the embedded warehouse (in use by ${pid === undefined ? 'another process' : `pid ${pid}`})\n`),
    });
  }
  // Ctrl-C stops the query on the engine before the process ends.
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await runQuery(warehouse, sql, { ...limits, signal: abort.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await warehouse.close();
  }
}
