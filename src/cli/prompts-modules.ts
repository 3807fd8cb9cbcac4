/** What the prompts subcommands run, loaded on use: `--help` and usage errors load only commander. */
export async function loadPromptsModules() {
  const [prompts, context, progress] = await Promise.all([import('../prompts/index.js'), import('./command-context.js'), import('./progress-display.js')]);
  return { ...prompts, ...context, ...progress };
}
