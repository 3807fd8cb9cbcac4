/**
 * `prompts send --from-query "SQL"` / `--from-query-file F`: one read-only statement, run through
 * the same gate and read path as `mintpipe query` (through a running installation's gateway when
 * one holds the warehouse); each result row is a prompt row (query-rows.ts), sent as a file's rows
 * are (send-prompt-rows.ts), keyed rows deduped against the ledger.
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { inertLine } from '../inert-text.js';
import { readProblem } from '../read-problem.js';

export interface FromQueryFlags {
  fromQuery?: string;
  fromQueryFile?: string;
  dedupeDays: string;
  dryRun?: boolean;
  wait?: boolean;
  format: string;
  force?: boolean;
  allowCreate?: boolean;
}

/** Most rows one query may turn into prompts: more is a query that forgot its LIMIT. */
const MAX_QUERY_ROWS = 10_000;
const QUERY_TIMEOUT_MS = 60_000;

export function parseDedupeDays(text: string): number {
  if (!/^\d{1,4}$/.test(text.trim())) throw new UsageError(`--dedupe-days: expected a whole number of days (0 or more), got "${text}"`);
  return Number(text.trim());
}

async function querySql(flags: FromQueryFlags): Promise<string> {
  if (flags.fromQuery !== undefined && flags.fromQueryFile !== undefined) throw new UsageError('prompts send: give --from-query or --from-query-file, not both');
  if (flags.fromQuery !== undefined) return flags.fromQuery;
  const file = flags.fromQueryFile!;
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new UsageError(`${file}: cannot read the query file (${readProblem(err)})`);
  }
  const { promptFileText } = await import('../prompts/prompt-file-text.js');
  return promptFileText(file, bytes, { name: 'query file', holds: 'UTF-8 SQL' });
}

export async function runSendFromQuery(flags: FromQueryFlags): Promise<number> {
  const dedupeDays = parseDedupeDays(flags.dedupeDays);
  const sql = await querySql(flags);
  const source = flags.fromQueryFile ?? 'query';
  if (sql.trim() === '') throw new UsageError(`${source}: the query is empty`);
  const [{ loadContext }, { readWarehouse }, { problemLines, promptsFromQueryRows }, { sendPromptRows }] = await Promise.all([
    import('./command-context.js'),
    import('./read-warehouse.js'),
    import('../prompts/index.js'),
    import('./send-prompt-rows.js'),
  ]);
  const context = loadContext({ oneShot: true });
  const result = await readWarehouse(sql, { timeoutMs: QUERY_TIMEOUT_MS, maxRows: MAX_QUERY_ROWS }, 'prompts');
  if (result.truncatedAt !== undefined) throw new UsageError(`${source}: the query returns more than ${MAX_QUERY_ROWS} rows (add a LIMIT); nothing sent`);
  const parsed = promptsFromQueryRows(result.rows as Array<Record<string, unknown>>, { maxPromptBytes: context.config.prompts.maxPromptBytes }, { allowCreate: flags.allowCreate });
  for (const line of problemLines(parsed.problems, (n) => `${source} row ${n}`)) process.stderr.write(`${line}\n`);
  if (parsed.prompts.length === 0) {
    process.stderr.write(`${inertLine(source)}: no good prompt rows (${result.rows.length} row(s), ${parsed.problems.length} bad); nothing sent\n`);
    return parsed.problems.length > 0 ? 2 : 0;
  }
  const rows = parsed.prompts.map(({ kind: _kind, head: _head, ...row }) => row);
  const sent = await sendPromptRows(context, rows, { ...flags, source, dedupeDays, badRows: parsed.problems });
  return sent.exitCode;
}
