import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listRecipeNames, loadRecipe } from '../../src/triage/load-recipes.js';
import { RecipeError } from '../../src/triage/recipe.js';
import { recipeSql } from '../../src/triage/recipe-sql.js';
import { triageRows } from '../../src/triage/recipe-rows.js';
import { fileTempDir } from '../support/test-env.js';

const recipe = loadRecipe('feedback-hotspots', undefined);
const OPTIONS = { days: 7, maxJobs: 2, secrets: ['mint_Zx81Qp0vLk2Jd7'] };

function row(project: string, subject: string, impact: number, comments: Array<[string, string, string]>) {
  return { project_id: project, subject, complaints: comments.length, page_views: 10.5, impact, items: comments };
}

describe('recipe rows as prompt rows', () => {
  const rows = [
    row('p', '/b', 7.25, [['f1', 'bad example', '2026-11-20 10:00:00.000']]),
    row('p', '/a', 7.25, [['f2', 'old', '2026-11-20 09:00:00.000'], ['f3', 'newer', '2026-11-21 09:00:00.000']]),
    row('p', '/c', 9.5, [['f4', 'x', '']]),
    row('q', '/z', 1, [['f5', 'y', '']]),
  ];

  it('orders by impact, then project and subject, whatever the result order, and caps per project', () => {
    const forward = triageRows(recipe, rows, OPTIONS);
    const backward = triageRows(recipe, [...rows].reverse(), OPTIONS);
    expect(forward.map((r) => `${r.projectId}${r.subject}`)).toEqual(['p/c', 'p/a', 'q/z']);
    expect(backward).toEqual(forward);
    expect(forward[1]!.key).toBe('feedback-hotspots:p:/a');
    expect(forward[1]!.sources).toEqual(['f3', 'f2']);
  });

  it('quotes the newest items first, fenced, and fills the template from the row', () => {
    const [, a] = triageRows(recipe, rows, OPTIONS);
    expect(a!.prompt).toContain('page /a (project p) left 2 comments');
    expect(a!.prompt).toContain('```reader-input\n1. [f3] newer\n2. [f2] old\n```');
  });

  it('names the recipe file when a row lacks a column the recipe needs', () => {
    expect(() => triageRows(recipe, [{ project_id: 'p', subject: '/a', items: [] }], OPTIONS)).toThrow(/feedback-hotspots\/query\.sql: impact: expected a number column/);
  });

  it('fills the window, project and params in as literals', () => {
    const sql = recipeSql(recipe, { project: "o'brien", sinceDate: '2026-11-19', params: { min_items: 5 } });
    expect(sql).toContain("'o\\'brien'");
    expect(sql).toContain("toDate('2026-11-19')");
    expect(sql).toContain('HAVING complaints >= 5');
  });
});

describe('recipe files', () => {
  it('lists the built-in recipes, and a user directory overrides one by name and adds its own', () => {
    const dir = fileTempDir('recipes');
    for (const name of ['search-gaps', 'my-recipe']) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'query.sql'), '-- description: mine\n-- reads: searches\nSELECT 1');
      writeFileSync(join(dir, name, 'prompt.md'), 'look {{quotes}}');
    }
    expect(listRecipeNames(undefined)).toEqual(['feedback-hotspots', 'search-gaps', 'unanswered-questions']);
    expect(listRecipeNames(dir)).toEqual(['feedback-hotspots', 'my-recipe', 'search-gaps', 'unanswered-questions']);
    expect(loadRecipe('search-gaps', dir)).toMatchObject({ builtIn: false, description: 'mine' });
  });

  it('refuses a bad recipe file with one line naming it', () => {
    const dir = fileTempDir('recipes');
    const bad = (name: string, sql: string, prompt: string) => {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'query.sql'), sql);
      if (prompt) writeFileSync(join(dir, name, 'prompt.md'), prompt);
      try {
        loadRecipe(name, dir);
      } catch (err) {
        expect(err).toBeInstanceOf(RecipeError);
        expect((err as Error).message).not.toContain('\n');
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad('no-reads', 'SELECT 1', '{{quotes}}')).toBe(`${join(dir, 'no-reads', 'query.sql')}: no "-- reads: dataset, …" line (the datasets the query reads)`);
    expect(bad('bad-reads', '-- reads: nope\nSELECT 1', '{{quotes}}')).toMatch(/query\.sql: reads: unknown dataset "nope"/);
    expect(bad('no-quotes', '-- reads: feedback\nSELECT 1', 'just text')).toBe(`${join(dir, 'no-quotes', 'prompt.md')}: the template has no {{quotes}} (where the reader input goes, fenced)`);
    expect(bad('no-prompt', '-- reads: feedback\nSELECT 1', '')).toBe(`${join(dir, 'no-prompt', 'prompt.md')}: cannot read the recipe file (no such file)`);
  });
});
