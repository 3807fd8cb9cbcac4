import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/config-error.js';
import { triageSettings } from '../../config/triage.js';
import { planTriageNight } from '../../src/triage/nightly-triage.js';

describe('triage settings', () => {
  it('is off by default, with 3 jobs per project and night', () => {
    expect(triageSettings({})).toEqual({ nightly: [], maxJobs: 3, recipesDir: undefined });
  });

  it('takes known recipe names and refuses unknown ones, naming the key', () => {
    expect(triageSettings({ MINTPIPE_TRIAGE: 'feedback-hotspots, search-gaps', MINTPIPE_TRIAGE_MAX_JOBS: '5' })).toMatchObject({ nightly: ['feedback-hotspots', 'search-gaps'], maxJobs: 5 });
    expect(() => triageSettings({ MINTPIPE_TRIAGE: 'feedback-hotspot' })).toThrow(new ConfigError('MINTPIPE_TRIAGE', 'unknown recipe "feedback-hotspot" (`mintpipe triage list` shows them)'));
    expect(() => triageSettings({ MINTPIPE_TRIAGE: '../x' })).toThrow(ConfigError);
    expect(() => triageSettings({ MINTPIPE_TRIAGE_MAX_JOBS: '0' })).toThrow(/MINTPIPE_TRIAGE_MAX_JOBS: expected an integer from 1 to 100/);
    expect(() => triageSettings({ MINTPIPE_RECIPES_DIR: '/no/such/dir' })).toThrow(/MINTPIPE_RECIPES_DIR: no such directory/);
  });

  it('refuses a MINTPIPE_RECIPES_DIR that is a file, naming the key, rather than fail later listing it', () => {
    const file = fileURLToPath(import.meta.url);
    expect(() => triageSettings({ MINTPIPE_RECIPES_DIR: file })).toThrow(new ConfigError('MINTPIPE_RECIPES_DIR', `not a directory "${file}"`));
  });

  it("gives each nightly recipe the night's windows of the datasets it reads", () => {
    const windows = (['feedback', 'views', 'searches', 'visitors'] as const).map((dataset) => ({ dataset, projectId: 'p', dateFrom: '2026-11-25', dateTo: '2026-11-26' }));
    const [hotspots, gaps] = planTriageNight(['feedback-hotspots', 'search-gaps'], windows, { night: '2026-11-26', plannedAtMs: 1, projects: ['p'], recipesDir: undefined });
    expect(hotspots!.windows.map((w) => w.dataset)).toEqual(['feedback', 'views']);
    expect(gaps!.windows.map((w) => w.dataset)).toEqual(['searches']);
  });
});
