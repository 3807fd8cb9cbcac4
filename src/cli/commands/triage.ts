/**
 * `mintpipe triage list|show NAME|run NAME|status`: recipes that turn what readers say (feedback
 * comments, unanswered assistant questions, searches nobody clicks) into agent jobs. A recipe is a
 * read-only query over the public views plus a prompt template (recipes/NAME/, or
 * MINTPIPE_RECIPES_DIR/NAME/ to override or add); `run` sends its rows as `prompts send
 * --from-query` does, each keyed `recipe:project:subject`, so a second run within --dedupe-days
 * sends nothing already sent. Creating agent jobs needs --allow-create (MINTPIPE_TRIAGE implies it).
 */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { TriageRunFlags } from '../triage-run.js';

export function register(program: Command): void {
  const triage = program.command('triage').description('recipes that turn reader complaints into agent jobs (feedback-hotspots, unanswered-questions, search-gaps)');
  triage
    .command('list')
    .description('the recipes: built-in and MINTPIPE_RECIPES_DIR')
    .action(async () => {
      const { loadContext } = await import('../command-context.js');
      const { listRecipeNames, loadRecipe } = await import('../../triage/load-recipes.js');
      const dir = loadContext({ oneShot: true }).config.triage.recipesDir;
      for (const name of listRecipeNames(dir)) {
        const recipe = loadRecipe(name, dir);
        process.stdout.write(`${name.padEnd(22)} ${recipe.builtIn ? 'built-in' : 'user    '}  ${recipe.description}\n`);
      }
    });
  triage
    .command('show')
    .description("a recipe's files: where they are, the query and the prompt template")
    .argument('<name>', 'recipe name')
    .action(async (name: string) => {
      const { loadContext } = await import('../command-context.js');
      const { loadRecipe } = await import('../../triage/load-recipes.js');
      const recipe = loadRecipe(name, loadContext({ oneShot: true }).config.triage.recipesDir);
      const params = Object.entries(recipe.params).map(([k, v]) => `${k}=${v}`).join(', ');
      process.stdout.write(`${recipe.name} (${recipe.builtIn ? 'built-in' : 'user'}): ${recipe.dir}\nreads: ${recipe.reads.join(', ')}\nparams: ${params || 'none'}\n\n`);
      process.stdout.write(`--- query.sql\n${recipe.sql.trimEnd()}\n\n--- prompt.md\n${recipe.template.trimEnd()}\n`);
    });
  triage
    .command('run')
    .description("run a recipe: one agent job per row of its query (ordered by impact, capped), prompts quoting reader input as data")
    .argument('<name>', 'recipe name (`triage list`)')
    .option('--project <id>', 'only this project (default: every project in the warehouse)')
    .option('--since <days>', 'the window: the last N days (7d)', '7d')
    .option('--max-jobs <n>', 'at most this many agent jobs per project', '3')
    .option('--dedupe-days <n>', 'a subject sent within this many days is not sent again', '14')
    .option('--dry-run', 'print the prompts that would be sent, send nothing')
    .option('--wait', 'follow the batch to the end')
    .option('--allow-create', 'create the agent jobs (a create cannot be undone); MINTPIPE_TRIAGE implies it')
    .option('--format <format>', 'output: text or json', 'text')
    .action(async (name: string, flags: TriageRunFlags) => {
      const { runTriage } = await import('../triage-run.js');
      process.exitCode = await runTriage(name, flags);
    });
  triage
    .command('status')
    .description('triaged subjects: the items behind each, the agent job, its status and pull request (triage_items)')
    .option('--format <format>', 'output: text or json', 'text')
    .action(async (flags: { format: string }) => {
      if (!['text', 'json'].includes(flags.format)) throw new UsageError(`--format: expected text or json, got "${flags.format}"`);
      const { triageStatus } = await import('../triage-status.js');
      await triageStatus(flags.format);
    });
}
