import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { projectWithData } from '../support/project-with-data.js';
import { runCli } from '../support/run-cli.js';
import { seedWarehouse } from '../support/warehouse-template.js';
import { promptTestEnv, TEST_API_KEY } from '../support/prompts-stack.js';
import { expectedHotspots as hotspotsOf, expectedQuestions as questionsOf, expectedSearchGaps as searchGapsOf, normalised } from '../support/triage-truth.js';
import { fileTempDir } from '../support/test-env.js';

const OPTIONS: EmulatorOptions = { seed: 7, agentTimeMs: 50 };
const DAY_MS = 86_400_000;
let emulator: RunningEmulator;
let env: Record<string, string>;
/** The exported day windows: the last three whole days (`triage run` reads the clock: since 7 days ago). */
const days = [3, 2, 1].map((back) => {
  const from = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - back * DAY_MS);
  return [from.toISOString().slice(0, 10), new Date(from.getTime() + DAY_MS).toISOString().slice(0, 10)] as const;
});
/** A project whose data in those days has a hotspot, two question groups and two search gaps. */
const PROJECT = projectWithData(['tri', 'tri_b', 'tri_c', 'tri_d', 'tri_e', 'tri_f'], 'a feedback hotspot, two question groups and two search gaps', (project) =>
  hotspotsOf(OPTIONS, project, days).size > 0 && questionsOf(OPTIONS, project, days).size > 1 && searchGapsOf(OPTIONS, project, days).size > 1,
);
const expectedHotspots = () => hotspotsOf(OPTIONS, PROJECT, days);
const expectedQuestions = () => questionsOf(OPTIONS, PROJECT, days);
const expectedSearchGaps = () => searchGapsOf(OPTIONS, PROJECT, days);

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, ...OPTIONS });
  const dir = fileTempDir('triage');
  env = promptTestEnv({ MINTLIFY_API_URL: emulator.url, MINTPIPE_DATA_DIR: seedWarehouse(join(dir, 'data')), LOG_LEVEL: 'warn' });
  const exported = await runCli(['export', '--project', PROJECT, '--from', days[0]![0], '--to', days[2]![1], '--dataset', 'feedback,views,assistant,searches', '--wait'], env, 180_000);
  expect(exported.code, exported.stderr).toBe(0);
}, 240_000);

afterAll(async () => {
  await emulator?.close();
});

const created = () => emulator.creates.filter((c) => c.projectId === PROJECT).map((c) => c.prompt);

/** The quoted lines of a prompt (between its reader-input fence), without their numbers and ids. */
function quoted(prompt: string): string[] {
  const block = /```reader-input\n([\s\S]*?)\n```/.exec(prompt)?.[1] ?? '';
  return block.split('\n').map((line) => line.replace(/^\d+\. \[[^\]]*\] /, ''));
}

describe('triage recipes end to end (export → triage → agent jobs → outcomes → triage_items)', () => {
  it('feedback-hotspots: a dry run sends nothing; a run creates one job per hotspot page quoting only its comments, fenced; a second run creates none; triage_items links every complaint', async () => {
    const hotspots = expectedHotspots();
    expect(hotspots.size).toBeGreaterThan(0);
    const dry = await runCli(['triage', 'run', 'feedback-hotspots', '--project', PROJECT, '--max-jobs', '100', '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`dry run: ${hotspots.size} prompt(s) would be sent`);
    expect(created()).toEqual([]);

    const refused = await runCli(['triage', 'run', 'feedback-hotspots', '--project', PROJECT], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--allow-create');
    // A recipe that does not exist is said first: --allow-create would not help it.
    const unknown = await runCli(['triage', 'run', 'no-such-recipe', '--project', PROJECT], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual([expect.stringMatching(/recipe "no-such-recipe": no such recipe \(known: .*feedback-hotspots/)]);

    const run = await runCli(['triage', 'run', 'feedback-hotspots', '--project', PROJECT, '--max-jobs', '100', '--allow-create', '--wait'], env, 120_000);
    expect(run.code, run.stderr).toBe(0);
    const prompts = created();
    expect(prompts).toHaveLength(hotspots.size);
    const pages = prompts.map((p) => /documentation page (\S+) \(project/.exec(p)?.[1]);
    expect(new Set(pages)).toEqual(new Set(hotspots.keys()));
    for (const prompt of prompts) {
      const page = /documentation page (\S+) \(project/.exec(prompt)![1]!;
      const comments = new Set([...hotspots.get(page)!.values()].map((c) => c.replace(/\s+/g, ' ').trim()));
      const lines = quoted(prompt);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.length).toBeLessThanOrEqual(8);
      for (const line of lines) expect(comments).toContain(line);
      expect(prompt.match(/```/g)).toHaveLength(2);
      expect(prompt).not.toMatch(/@example\.com/);
      expect(prompt).not.toContain(TEST_API_KEY);
    }

    const again = await runCli(['triage', 'run', 'feedback-hotspots', '--project', PROJECT, '--max-jobs', '100', '--allow-create', '--wait'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`nothing to send (${hotspots.size} row(s) already sent`);
    expect(created()).toHaveLength(hotspots.size);

    const items = await runCli(['query', "SELECT subject, item_id, status, pr_link, job_id FROM triage_items WHERE recipe = 'feedback-hotspots' ORDER BY subject, item_id", '--format', 'json'], env);
    expect(items.code, items.stderr).toBe(0);
    const rows = JSON.parse(items.stdout) as Array<{ subject: string; item_id: string; status: string; pr_link: string | null; job_id: string }>;
    const want = [...hotspots].flatMap(([page, ids]) => [...ids.keys()].map((id) => `${page} ${id}`)).sort();
    expect(rows.map((r) => `${r.subject} ${r.item_id}`).sort()).toEqual(want);
    for (const r of rows) expect(['completed', 'failed']).toContain(r.status);
    expect(rows.every((r) => r.job_id !== '')).toBe(true);
  });

  it('unanswered-questions and search-gaps create one job per expected group, capped by --max-jobs by impact', async () => {
    const questions = expectedQuestions();
    expect(questions.size).toBeGreaterThan(1);
    const before = created().length;
    const run = await runCli(['triage', 'run', 'unanswered-questions', '--project', PROJECT, '--max-jobs', '100', '--allow-create', '--wait'], env, 120_000);
    expect(run.code, run.stderr).toBe(0);
    const asked = created().slice(before);
    expect(new Set(asked.map((p) => quoted(p)[0]).map((q) => normalised(q!)))).toEqual(new Set(questions.keys()));

    const gaps = expectedSearchGaps();
    expect(gaps.size).toBeGreaterThan(1);
    const capped = await runCli(['triage', 'run', 'search-gaps', '--project', PROJECT, '--max-jobs', '1', '--dry-run', '--format', 'json'], env);
    expect(capped.code, capped.stderr).toBe(0);
    expect((JSON.parse(capped.stdout) as { prompts: unknown[] }).prompts).toHaveLength(1);
    const mid = created().length;
    const searched = await runCli(['triage', 'run', 'search-gaps', '--project', PROJECT, '--max-jobs', '100', '--allow-create', '--wait'], env, 120_000);
    expect(searched.code, searched.stderr).toBe(0);
    expect(new Set(created().slice(mid).map((p) => normalised(quoted(p)[0]!)))).toEqual(gaps);

    // triage status: one row per triaged subject, the newest run first, each with its item count.
    const status = await runCli(['triage', 'status', '--format', 'json'], env);
    expect(status.code, status.stderr).toBe(0);
    const subjects = JSON.parse(status.stdout) as Array<{ recipe: string; subject: string; items: number }>;
    const hotspots = expectedHotspots();
    expect(subjects.map((s) => s.recipe)).toEqual([
      ...Array<string>(gaps.size).fill('search-gaps'),
      ...Array<string>(questions.size).fill('unanswered-questions'),
      ...Array<string>(hotspots.size).fill('feedback-hotspots'),
    ]);
    for (const s of subjects.filter((s) => s.recipe === 'feedback-hotspots')) expect(Number(s.items)).toBe(hotspots.get(s.subject)!.size);
    for (const s of subjects.filter((s) => s.recipe === 'unanswered-questions')) expect(Number(s.items)).toBe(questions.get(s.subject)!.size);
  });
});
