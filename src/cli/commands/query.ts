/** `mintpipe query "SQL"`: read-only SQL on the warehouse (SELECT, SHOW, DESCRIBE, EXPLAIN, WITH). */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { QueryResult } from '../../warehouse/index.js';
import { loadContext } from '../command-context.js';

const FORMATS = ['table', 'json', 'csv'] as const;

export function register(program: Command): void {
  program
    .command('query')
    .description('run read-only SQL on the warehouse (views: visitors, visitor_totals, prompt_outcomes, export_runs)')
    .argument('<sql>', 'a SELECT, SHOW, DESCRIBE, EXPLAIN or WITH statement')
    .option('--format <format>', `output: ${FORMATS.join(', ')}`, 'table')
    .action(async (sql: string, flags: { format: string }) => {
      if (!(FORMATS as readonly string[]).includes(flags.format)) {
        throw new UsageError(`--format: expected ${FORMATS.join(', ')}, got "${flags.format}"`);
      }
      const { assertReadOnly, formatRows } = await import('../../warehouse/index.js');
      assertReadOnly(sql);
      const { config, logger } = loadContext({ oneShot: true });
      const result = await runReadOnly(sql, config, logger);
      process.stdout.write(`${formatRows(result, flags.format as (typeof FORMATS)[number])}\n`);
    });
}

async function runReadOnly(sql: string, config: ReturnType<typeof loadContext>['config'], logger: ReturnType<typeof loadContext>['logger']): Promise<QueryResult> {
  const { openWarehouse, runQuery, WarehouseLockedError } = await import('../../warehouse/index.js');
  const { queryThroughGateway, QueryFailedError } = await import('../warehouse-gateway.js');
  let warehouse;
  try {
    warehouse = await openWarehouse({ ...config.clickhouse, dataDir: config.dataDir, logger });
  } catch (err) {
    if (!(err instanceof WarehouseLockedError)) throw err;
    // A running mintpipe process holds the embedded warehouse: ask it.
    const viaGateway = await queryThroughGateway(config.dataDir, sql);
    if (viaGateway) return viaGateway;
    throw err;
  }
  try {
    return await runQuery(warehouse, sql);
  } catch (err) {
    if (err instanceof Error && !(err instanceof UsageError)) throw new QueryFailedError(`query: ${err.message.split('\n')[0]}`);
    throw err;
  } finally {
    await warehouse.close();
  }
}
