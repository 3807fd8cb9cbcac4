import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { SETTING_NAMES } from '../../config/misspelled-setting.js';
import { configRefusal as refusal } from '../support/config-refusal.js';

/** Every MINTPIPE_ name the code spells out, in config/, src/ and bin/ (but the list's own file, which names typos). */
function namesInCode(): Set<string> {
  const names = new Set<string>();
  const visit = (path: string) => {
    if (statSync(path).isDirectory()) return readdirSync(path).forEach((entry) => visit(join(path, entry)));
    if (!/\.(ts|js|mjs)$/.test(path) || path === join('config', 'misspelled-setting.ts')) return;
    for (const match of readFileSync(path, 'utf8').matchAll(/MINTPIPE_[A-Z0-9_]*[A-Z0-9]/g)) names.add(match[0]);
  };
  ['config', 'src', 'bin'].forEach(visit);
  return names;
}

describe('a MINTPIPE_ variable that reads like a setting but is none', () => {
  it.each([
    ['MINTPIPE_PROJECT', 'MINTPIPE_PROJECTS'],
    ['MINTPIPE_DATASET', 'MINTPIPE_DATASETS'],
    ['MINTPIPE_ANALYTIC_RATE', 'MINTPIPE_ANALYTICS_RATE'],
    ['mintpipe_projects', 'MINTPIPE_PROJECTS'],
    ['MINTPIPE_DATADIR', 'MINTPIPE_DATA_DIR'],
  ])('is refused in one line naming %s and the setting meant, %s, rather than dropped in silence', (typo, meant) => {
    expect(refusal({ [typo]: 'acme' }).message).toBe(`${typo}: no such setting (did you mean ${meant}?); its value would be ignored`);
  });

  it('leaves other MINTPIPE_ names alone (docker compose reads MINTPIPE_IMAGE and MINTPIPE_DASHBOARD_PUBLISH)', () => {
    expect(() => loadConfig({ MINTPIPE_IMAGE: 'mintpipe:1', MINTPIPE_DASHBOARD_PUBLISH: '127.0.0.1:3000', MINTPIPE_TEST_WAREHOUSE_TEMPLATE: '/tmp/x' })).not.toThrow();
  });

  it('knows every setting the code reads, so none of them is taken for a typo', () => {
    expect([...namesInCode()].filter((name) => !(SETTING_NAMES as readonly string[]).includes(name)).sort()).toEqual([]);
  });
});
