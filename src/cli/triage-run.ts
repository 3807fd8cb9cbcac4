/**
 * `mintpipe triage run NAME`: the recipe's query through the same read path as `query`, its rows
 * as keyed prompt rows (src/triage/recipe-rows.ts), sent as `prompts send --from-query` sends them.
 */
import { UsageError } from '../errors.js';
import { parseProjectId } from '../export/windows.js';

const DAY_MS = 86_400_000;

export function parseSinceDays(text: string): number {
  const match = /^(\d{1,3})d$/.exec(text.trim());
  const days = match ? Number(match[1]) : Number.NaN;
  if (!(days >= 1 && days <= 365)) throw new UsageError(`--since: expected a number of days from 1d to 365d, got "${text}"`);
  return days;
}

function parseMaxJobs(text: string): number {
  const n = /^\d{1,3}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(n >= 1 && n <= 100)) throw new UsageError(`--max-jobs: expected a whole number from 1 to 100, got "${text}"`);
  return n;
}

/** The flags of `triage run`, as commander parses them. */
export interface TriageRunFlags {
  project?: string;
  since: string;
  maxJobs: string;
  dedupeDays: string;
  dryRun?: boolean;
  wait?: boolean;
  allowCreate?: boolean;
  format: string;
}

export async function runTriage(name: string, flags: TriageRunFlags): Promise<number> {
  if (!['text', 'json'].includes(flags.format)) throw new UsageError(`--format: expected text or json, got "${flags.format}"`);
  const days = parseSinceDays(flags.since);
  const maxJobs = parseMaxJobs(flags.maxJobs);
  const { parseDedupeDays } = await import('./prompts-from-query.js');
  const dedupeDays = parseDedupeDays(flags.dedupeDays);
  const project = flags.project === undefined ? '' : parseProjectId(flags.project, '--project');
  const [{ loadContext }, { loadRecipe }, { recipeSql }, { triageRows }, { readWarehouse }, { sendPromptRows }] = await Promise.all([
    import('./command-context.js'),
    import('../triage/load-recipes.js'),
    import('../triage/recipe-sql.js'),
    import('../triage/recipe-rows.js'),
    import('./read-warehouse.js'),
    import('./send-prompt-rows.js'),
  ]);
  const context = loadContext({ oneShot: true });
  // An unknown recipe is said first: --allow-create would not help it.
  const recipe = loadRecipe(name, context.config.triage.recipesDir);
  const allowCreate = flags.allowCreate === true || context.config.triage.nightly.length > 0;
  if (!allowCreate && !flags.dryRun) throw new UsageError(`triage run ${name}: a recipe creates agent jobs, which cannot be undone: pass --allow-create (or --dry-run to see them)`);
  const sinceDate = new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);
  const sql = recipeSql(recipe, { project, sinceDate });
  const result = await readWarehouse(sql, { timeoutMs: 120_000, maxRows: 100_000 }, 'triage');
  const rows = triageRows(recipe, result.rows as Array<Record<string, unknown>>, { days, maxJobs, secrets: [context.config.api.key] });
  const found = `triage ${name}: ${result.rows.length} subject(s) found since ${sinceDate}, ${rows.length} within --max-jobs ${maxJobs} per project`;
  process.stderr.write(`${found}\n`);
  for (const r of rows) process.stderr.write(`  ${r.projectId}  ${r.subject}  (impact ${r.impact}, ${r.sources.length} item(s))\n`);
  const lines = rows.map((r, i) => ({ projectId: r.projectId, prompt: r.prompt, key: r.key, sources: r.sources, line: i + 1 }));
  const sent = await sendPromptRows(context, lines, {
    source: `triage ${name}`,
    dedupeDays,
    dryRun: flags.dryRun,
    wait: flags.wait,
    format: flags.format,
    allowCreate,
    badRows: [],
    command: 'triage',
  });
  return sent.exitCode;
}
