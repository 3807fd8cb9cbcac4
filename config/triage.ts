/**
 * Settings of triage: which recipes the nightly run runs after its exports (`MINTPIPE_TRIAGE`,
 * default none: off), at most how many agent jobs each makes per project per night
 * (`MINTPIPE_TRIAGE_MAX_JOBS`, default 3), and the user's recipe directory
 * (`MINTPIPE_RECIPES_DIR`, whose recipes override the built-in ones by name). A nightly recipe
 * must exist, among the built-in recipes or in that directory.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { builtInRecipesDir, RECIPE_NAME } from './recipes.js';
import { ConfigError } from './config-error.js';

type Env = Record<string, string | undefined>;

export interface TriageSettings {
  /** Recipes of the nightly run, in order. @default [] (off) */
  nightly: string[];
  /** Most agent jobs per recipe, project and night. @default 3 */
  maxJobs: number;
  /** `MINTPIPE_RECIPES_DIR`. @default undefined (built-in recipes only) */
  recipesDir: string | undefined;
}

export function triageSettings(env: Env): TriageSettings {
  const dir = env.MINTPIPE_RECIPES_DIR?.trim() ? resolve(env.MINTPIPE_RECIPES_DIR.trim()) : undefined;
  if (dir !== undefined && !existsSync(dir)) throw new ConfigError('MINTPIPE_RECIPES_DIR', `no such directory "${dir}"`);
  if (dir !== undefined && !statSync(dir).isDirectory()) throw new ConfigError('MINTPIPE_RECIPES_DIR', `not a directory "${dir}"`);
  const names = (env.MINTPIPE_TRIAGE ?? '').split(',').map((n) => n.trim()).filter(Boolean);
  for (const name of names) {
    if (!RECIPE_NAME.test(name)) throw new ConfigError('MINTPIPE_TRIAGE', `"${name.slice(0, 64)}" is not a recipe name (lower-case letters, digits and -)`);
    const found = existsSync(join(builtInRecipesDir(), name, 'query.sql')) || (dir !== undefined && existsSync(join(dir, name, 'query.sql')));
    if (!found) throw new ConfigError('MINTPIPE_TRIAGE', `unknown recipe "${name}" (\`mintpipe triage list\` shows them)`);
  }
  const raw = env.MINTPIPE_TRIAGE_MAX_JOBS?.trim();
  const maxJobs = raw === undefined || raw === '' ? 3 : /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(maxJobs >= 1 && maxJobs <= 100)) throw new ConfigError('MINTPIPE_TRIAGE_MAX_JOBS', `expected an integer from 1 to 100, got "${env.MINTPIPE_TRIAGE_MAX_JOBS}"`);
  return { nightly: [...new Set(names)], maxJobs, recipesDir: dir };
}
