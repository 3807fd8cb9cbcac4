import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { planChains } from '../../src/prompts/plan-chains.js';
import { batchIdFor, promptIdFor } from '../../src/prompts/prompt-ids.js';
import { PollPace } from '../../src/prompts/poll-pace.js';
import { parsePromptText } from '../../src/prompts/read-prompt-file.js';

const limits = { maxPromptBytes: 1000 };
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n');

/** [line, kind, chain] of each good line, and [line, reason] of each bad one. */
function shape(file: Awaited<ReturnType<typeof parsePromptText>>) {
  return {
    good: file.prompts.map((p) => [p.line, p.kind, p.chain ?? null, p.head]),
    bad: file.problems.map((p) => [p.line, p.reason]),
  };
}

describe('prompt files with creates and chains', () => {
  const rows = [
    { projectId: 'p', chain: 'sdk-js', prompt: 'update the JS quickstart' },
    { projectId: 'p', chain: 'sdk-py', prompt: 'update the Python quickstart' },
    { projectId: 'p', chain: 'sdk-js', prompt: 'now the JS reference' },
    { projectId: 'p', jobId: 'job-7', prompt: 'a plain follow-up' },
    { projectId: 'p', chain: 'sdk-py', prompt: 'now the Python reference' },
    { projectId: 'p', chain: 'named', jobId: 'job-9', prompt: 'a chain on an existing job' },
    { projectId: 'p', chain: 'named', prompt: 'its follow-up' },
  ];

  it('makes the first row of a chain create its job (with --allow-create) and later rows follow up on it, in input order', async () => {
    const file = await parsePromptText('in.jsonl', jsonl(rows), limits, { allowCreate: true });
    expect(shape(file)).toEqual({
      good: [
        [1, 'create', 'sdk-js', 0],
        [2, 'create', 'sdk-py', 1],
        [3, 'message', 'sdk-js', 0],
        [4, 'message', null, 3],
        [5, 'message', 'sdk-py', 1],
        [6, 'message', 'named', 5],
        [7, 'message', 'named', 5],
      ],
      bad: [],
    });
  });

  it('without --allow-create refuses every row that would create a job, and the rest of its chain, naming the lines', async () => {
    const file = await parsePromptText('in.jsonl', jsonl(rows), limits);
    expect(shape(file).good).toEqual([
      [4, 'message', null, 0],
      [6, 'message', 'named', 1],
      [7, 'message', 'named', 1],
    ]);
    expect(shape(file).bad.map(([line]) => line)).toEqual([1, 2, 3, 5]);
    expect(file.problems[0]!.reason).toMatch(/^jobId: missing .*--allow-create/);
    expect(file.problems[2]!.reason).toBe('chain "sdk-js": not sent, because its first row (line 1) was refused');
  });

  it('refuses a follow-up that names its own job or another project, and the rows of the chain after it', async () => {
    const file = await parsePromptText(
      'in.jsonl',
      jsonl([
        { projectId: 'p', chain: 'c', prompt: 'start' },
        { projectId: 'p', chain: 'c', prompt: 'step 2' },
        { projectId: 'p', chain: 'c', jobId: 'job-1', prompt: 'step 3 names a job' },
        { projectId: 'p', chain: 'c', prompt: 'step 4' },
        { projectId: 'p', chain: 'd', prompt: 'other chain' },
        { projectId: 'q', chain: 'd', prompt: 'other project' },
      ]),
      limits,
      { allowCreate: true },
    );
    expect(shape(file)).toEqual({
      good: [
        [1, 'create', 'c', 0],
        [2, 'message', 'c', 0],
        [5, 'create', 'd', 2],
      ],
      bad: [
        [3, 'chain "c": a follow-up must not name a jobId (got "job-1"): the chain\'s first row, line 1, starts or names its agent job'],
        [4, 'chain "c": not sent, because line 3 of the chain was refused'],
        [6, 'chain "d": projectId "q" differs from the chain\'s first row (line 5, "p")'],
      ],
    });
  });

  it('refuses the rows of a chain after a line that could not be used, and keeps the ones before it', async () => {
    const file = await parsePromptText(
      'in.jsonl',
      jsonl([
        { projectId: 'p', chain: 'c', prompt: 'start' },
        { projectId: 'p', chain: 'c', prompt: '' },
        { projectId: 'p', chain: 'c', prompt: 'step 3' },
      ]),
      limits,
      { allowCreate: true },
    );
    expect(shape(file)).toEqual({
      good: [[1, 'create', 'c', 0]],
      bad: [
        [2, 'prompt: empty'],
        [3, 'chain "c": not sent, because line 2 of the chain was refused'],
      ],
    });
  });

  it('reads the chain column of CSV, jobId optional, an empty field meaning none', async () => {
    const text = ['projectId,chain,prompt', 'p,c1,"create, then"', 'p,c1,follow up', 'p,,alone'].join('\n');
    const file = await parsePromptText('in.csv', text, limits, { allowCreate: true });
    expect(shape(file).good).toEqual([
      [2, 'create', 'c1', 0],
      [3, 'message', 'c1', 0],
      [4, 'create', null, 2],
    ]);
    const withJobs = await parsePromptText('in.csv', ['projectId,jobId,prompt,chain', 'p,job-2,go,c', 'p,,more,c'].join('\n'), limits);
    expect(shape(withJobs).good).toEqual([
      [2, 'message', 'c', 0],
      [3, 'message', 'c', 0],
    ]);
  });
});

describe('ids of rows with creates and chains', () => {
  it('keeps the ids of rows without chain or create as they were, and tells chains and creates apart', () => {
    const plain = [{ projectId: 'p', jobId: 'j', prompt: 'a' }];
    // The id a batch of plain rows always had (length-prefixed parts, as before chains existed).
    const legacy = createHash('sha256').update('1:p1:j1:a').digest('hex').slice(0, 16);
    expect(batchIdFor(plain)).toBe(legacy);
    expect(batchIdFor([{ projectId: 'p', prompt: 'a' }])).not.toBe(batchIdFor([{ projectId: 'p', jobId: '', prompt: 'a' }]));
    expect(batchIdFor([{ projectId: 'p', jobId: 'j', prompt: 'a', chain: 'c' }])).not.toBe(batchIdFor(plain));
    expect(batchIdFor([{ projectId: 'p', prompt: 'a', chain: 'c' }])).not.toBe(batchIdFor([{ projectId: 'p', prompt: 'a', chain: 'd' }]));
    const batchId = batchIdFor(plain);
    expect(promptIdFor(batchId, 0, { projectId: 'p', prompt: 'a', chain: 'c' })).not.toBe(promptIdFor(batchId, 0, { projectId: 'p', prompt: 'a' }));
  });

  it('refuses to plan a create unless allowed', () => {
    expect(planChains([{ projectId: 'p', prompt: 'x' }]).problems).toEqual([{ index: 0, reason: expect.stringMatching(/--allow-create/) }]);
    expect(planChains([{ projectId: 'p', prompt: 'x' }], { allowCreate: true }).prompts).toEqual([{ projectId: 'p', prompt: 'x', kind: 'create', head: 0 }]);
  });
});

describe('the poll pace', () => {
  const timing = { pollInitialMs: 500, pollMaxMs: 5000, deadlineMs: 60_000, unchangedPollsToSettle: 3, settleMs: 10_000, maxConsecutiveFailures: 10, sendGuardMs: 35_000 };
  const prompt = { projectId: 'p', kind: 'message' };

  it('until it has seen a few runs end, polls first after pollInitialMs, then a quarter of the time since the send later, within pollInitialMs / 4 and pollMaxMs', () => {
    const pace = new PollPace(timing);
    expect(pace.firstPollMs(prompt)).toBe(500);
    expect([0, 500, 750, 1200, 3000, 9000, 60_000].map((elapsed) => pace.nextPollMs(prompt, elapsed))).toEqual([125, 125, 187.5, 300, 750, 2250, 5000]);
  });

  it('then polls first near where runs end, in short steps while runs usually end, and backs off past them', () => {
    const pace = new PollPace(timing);
    // Runs of 500 … 1500 ms (each seen between two polls 20 ms apart).
    for (let ms = 500; ms <= 1500; ms += 50) pace.observe(prompt, ms - 10, ms + 10);
    const first = pace.firstPollMs(prompt);
    expect(first).toBeGreaterThanOrEqual(750);
    expect(first).toBeLessThanOrEqual(850);
    // Half the runs still going at 1 s end by ~1.25 s: a step capped at 10% of the typical run (1 s).
    expect(pace.nextPollMs(prompt, 1000)).toBe(100);
    // Close to where a run seen ended: the step toward it, but at least 3% of the typical run.
    expect(pace.nextPollMs(prompt, 1490)).toBe(30);
    // Longer than every run seen: an eighth of the time so far, capped at pollMaxMs.
    expect(pace.nextPollMs(prompt, 1600)).toBe(200);
    expect(pace.nextPollMs(prompt, 4000)).toBe(500);
    expect(pace.nextPollMs(prompt, 60_000)).toBe(5000);
    // Another project, or creates, learn on their own.
    expect(pace.firstPollMs({ projectId: 'p', kind: 'create' })).toBe(500);
  });

  it('learns from the fifth run seen, in whatever order runs end, and from the latest 200 runs only', () => {
    const pace = new PollPace(timing);
    const runs = [1400, 600, 1000, 800, 1200];
    for (const ms of runs.slice(0, 4)) pace.observe(prompt, ms, ms);
    expect(pace.firstPollMs(prompt)).toBe(500);
    pace.observe(prompt, runs[4]!, runs[4]!);
    // The 30% quantile of 600, 800, 1000, 1200, 1400.
    expect(pace.firstPollMs(prompt)).toBe(800);
  });

  it('forgets runs beyond the latest 200', () => {
    const pace = new PollPace(timing);
    for (let i = 0; i < 5; i++) pace.observe(prompt, 10_000, 10_000);
    for (let i = 0; i < 199; i++) pace.observe(prompt, 1000, 1000);
    // One 10 s run is among the latest 200: a job active at 2 s may still end there (10% steps).
    expect(pace.nextPollMs(prompt, 2000)).toBe(100);
    pace.observe(prompt, 1000, 1000);
    // Forgotten: past every run seen, an eighth of the time since the send.
    expect(pace.nextPollMs(prompt, 2000)).toBe(250);
  });
});
