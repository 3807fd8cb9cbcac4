/**
 * `mintpipe query "SQL"`: read-only SQL on the warehouse (SELECT, WITH, UNION, SHOW, DESCRIBE,
 * EXPLAIN), judged by the engine's own parse and run read-only under a time, row and memory limit.
 * The table format holds its rows (to align them) and has a default row cap; json and csv stream
 * every row from the engine to stdout, and end with exit 1 when a limit cut them.
 */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';

const FORMATS = ['table', 'json', 'csv'] as const;
type Format = (typeof FORMATS)[number];

/** The table format's row cap when --max-rows is not given. */
const TABLE_MAX_ROWS = 100_000;

interface QueryFlags {
  format: string;
  timeout: string;
  maxRows?: string;
  csvSafe?: boolean;
}

export function register(program: Command): void {
  program
    .command('query')
    .description('run read-only SQL on the warehouse (views: visitors, page_views, feedback, assistant_conversations, searches, data_quality, prompt_outcomes, export_runs, …)')
    .argument('<sql>', 'one SELECT (WITH, UNION…), SHOW, DESCRIBE or EXPLAIN statement')
    .option('--format <format>', `output: ${FORMATS.join(', ')}; json and csv print every row or exit 1`, 'table')
    .option('--timeout <duration>', 'stop the query after this long (30s, 500ms, 2m; a bare number is seconds)', '30s')
    .option('--max-rows <n>', `return at most this many rows (table: ${TABLE_MAX_ROWS} unless given, says so on stderr when it cuts; json, csv: no cap unless given, exit 1 when it cuts)`)
    .option('--csv-safe', "with --format csv: put ' before text cells starting with = + - @ (or a tab or CR), which a spreadsheet would run as formulas")
    .action(async (sql: string, flags: QueryFlags) => {
      if (!(FORMATS as readonly string[]).includes(flags.format)) {
        throw new UsageError(`--format: expected ${FORMATS.join(', ')}, got "${flags.format}"`);
      }
      if (flags.csvSafe && flags.format !== 'csv') throw new UsageError(`--csv-safe: only with --format csv, got --format ${flags.format}`);
      // Loaded here, not at the top: `--help` and usage errors load only commander.
      const { parseMaxRows, parseQueryTimeout } = await import('../../warehouse/query-limits.js');
      const timeoutMs = parseQueryTimeout(flags.timeout);
      const maxRows = flags.maxRows === undefined ? undefined : parseMaxRows(flags.maxRows);
      const format = flags.format as Format;
      if (format === 'table') await printTable(sql, { timeoutMs, maxRows: maxRows ?? TABLE_MAX_ROWS });
      else if (flags.csvSafe) await printSafeCsv(sql, { timeoutMs, maxRows: maxRows ?? null });
      else await printStream(sql, { timeoutMs, maxRows: maxRows ?? null }, format);
    });
}

async function printTable(sql: string, limits: { timeoutMs: number; maxRows: number }): Promise<void> {
  const { readWarehouse } = await import('../read-warehouse.js');
  const result = await readWarehouse(sql, limits);
  const { formatRows } = await import('../../warehouse/format-rows.js');
  process.stdout.write(`${formatRows(result, 'table')}\n`);
  if (result.truncatedAt !== undefined) {
    process.stderr.write(`query: showing the first ${result.truncatedAt} rows; the result has more (raise --max-rows or narrow the query)\n`);
  }
}

/**
 * CSV for a spreadsheet: which cells are text is decided by the columns' types, so the rows are
 * read whole with their metadata before printing (a file meant for a person, not a stream). Cut by
 * --max-rows, it fails as the streamed formats do.
 */
async function printSafeCsv(sql: string, limits: { timeoutMs: number; maxRows: number | null }): Promise<void> {
  const [{ readWarehouse }, { formatRows }, { QueryLimitError }] = await Promise.all([
    import('../read-warehouse.js'),
    import('../../warehouse/format-rows.js'),
    import('../../warehouse/query-errors.js'),
  ]);
  const result = await readWarehouse(sql, limits);
  await writeOut(`${formatRows(result, 'csv', { csvSafe: true })}\n`);
  if (result.truncatedAt !== undefined) {
    throw new QueryLimitError(`query: the result was cut at ${result.truncatedAt} rows (--max-rows ${limits.maxRows}); the output is incomplete`);
  }
}

/**
 * Prints the engine's output as it arrives. A result cut by --max-rows, or stopped by a limit after
 * some rows, leaves what was printed and fails with one line: a program reading it sees exit 1
 * (and, for json, an array that is never closed).
 */
async function printStream(sql: string, limits: { timeoutMs: number; maxRows: number | null }, format: 'json' | 'csv'): Promise<void> {
  const [{ streamWarehouse }, { JsonArrayWriter }, { QueryLimitError }] = await Promise.all([
    import('../read-warehouse.js'),
    import('../../warehouse/json-array-writer.js'),
    import('../../warehouse/query-errors.js'),
  ]);
  const array = format === 'json' ? new JsonArrayWriter() : undefined;
  const outcome = await streamWarehouse(sql, limits, format === 'json' ? 'json-lines' : 'csv', (chunk) => writeOut(array ? array.chunk(chunk) : chunk));
  if (outcome.cut) {
    throw new QueryLimitError(`query: the result was cut at ${outcome.rows} rows (--max-rows ${limits.maxRows}); the output is incomplete`);
  }
  if (array) await writeOut(array.end());
}

/** Writes to stdout and waits until a slow reader has taken it, so nothing piles up in memory. */
async function writeOut(chunk: Uint8Array | string): Promise<void> {
  if (process.stdout.write(chunk)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      process.stdout.off('drain', done);
      process.stdout.off('close', done);
      resolve();
    };
    process.stdout.on('drain', done);
    process.stdout.on('close', done);
  });
}
