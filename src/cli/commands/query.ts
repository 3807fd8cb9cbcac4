/**
 * `mintpipe query "SQL"`: read-only SQL on the warehouse (SELECT, WITH, UNION, SHOW, DESCRIBE,
 * EXPLAIN), judged by the engine's own parse and run read-only under a time, row and memory limit.
 */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';

const FORMATS = ['table', 'json', 'csv'] as const;

interface QueryFlags {
  format: string;
  timeout: string;
  maxRows: string;
  csvSafe?: boolean;
}

export function register(program: Command): void {
  program
    .command('query')
    .description('run read-only SQL on the warehouse (views: visitors, page_views, feedback, assistant_conversations, searches, data_quality, prompt_outcomes, export_runs, …)')
    .argument('<sql>', 'one SELECT (WITH, UNION…), SHOW, DESCRIBE or EXPLAIN statement')
    .option('--format <format>', `output: ${FORMATS.join(', ')}`, 'table')
    .option('--timeout <duration>', 'stop the query after this long (30s, 500ms, 2m; a bare number is seconds)', '30s')
    .option('--max-rows <n>', 'return at most this many rows (says so on stderr when it cuts)', '100000')
    .option('--csv-safe', "with --format csv: put ' before text cells starting with = + - @, which a spreadsheet would run as formulas")
    .action(async (sql: string, flags: QueryFlags) => {
      if (!(FORMATS as readonly string[]).includes(flags.format)) {
        throw new UsageError(`--format: expected ${FORMATS.join(', ')}, got "${flags.format}"`);
      }
      if (flags.csvSafe && flags.format !== 'csv') throw new UsageError(`--csv-safe: only with --format csv, got --format ${flags.format}`);
      // Loaded here, not at the top: `--help` and usage errors load only commander.
      const { parseMaxRows, parseQueryTimeout } = await import('../../warehouse/query-limits.js');
      const limits = { timeoutMs: parseQueryTimeout(flags.timeout), maxRows: parseMaxRows(flags.maxRows) };
      const { readWarehouse } = await import('../read-warehouse.js');
      const result = await readWarehouse(sql, limits);
      const { formatRows } = await import('../../warehouse/format-rows.js');
      process.stdout.write(`${formatRows(result, flags.format as (typeof FORMATS)[number], { csvSafe: flags.csvSafe === true })}\n`);
      if (result.truncatedAt !== undefined) {
        process.stderr.write(`query: showing the first ${result.truncatedAt} rows; the result has more (raise --max-rows or narrow the query)\n`);
      }
    });
}
