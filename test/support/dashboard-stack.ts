/**
 * The dashboard preset of the test stack (test-stack.ts): no emulator and no workers; the queues
 * under the plain queue prefix, as the dashboard reads them; and seeding helpers that write the
 * warehouse through its own store functions, the way an export and a prompt batch would.
 */
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { addDays, dayInTimeZone, daysBetween } from '../../src/export/dates.js';
import type { OpsSource } from '../../src/ops/ops-source.js';
import { openQueue, type QueueName } from '../../src/queue/queues.js';
import { getDataset, type DatasetName } from '../../src/datasets/index.js';
import {
  completeRun,
  insertBatchFindings,
  insertPromptEvents,
  insertRowBatch,
  recordRunEvent,
  type BatchFinding,
  type PromptEvent,
  type Warehouse,
} from '../../src/warehouse/index.js';
import { openTestStack, type DashboardTokenHolder } from './test-stack.js';

type VisitorRow = { path: string; human: number; ai: number; total: number };

export interface DashboardStack extends DashboardTokenHolder {
  source: OpsSource;
  dataDir: string;
  warehouse: Warehouse;
  redis: Redis;
  prefix: string;
  queue(name: QueueName): Queue;
  close(): Promise<void>;
}

export interface DashboardStackOptions {
  /**
   * Embedded warehouse directory. A process can hold one directory only, so a second stack in the
   * same test file passes the first one's `dataDir` with another `database`. @default the dir the open stacks share
   */
  dataDir?: string;
  /** @default mintpipe */
  database?: string;
  /** Settings the dashboard's own process would run with (environment variables, as a user sets them). @default none */
  env?: Record<string, string>;
}

export async function openDashboardStack(options: DashboardStackOptions = {}): Promise<DashboardStack> {
  const stack = await openTestStack({ name: 'mpdash', dataDir: options.dataDir, database: options.database, env: options.env });
  const { runtime, warehouse, prefix } = stack;
  const queues = new Map<QueueName, Queue>();
  // The plain prefix, not the runtime's hash-tagged one: tests read the queues' keys under `prefix:`.
  const queue = (name: QueueName) => {
    let q = queues.get(name);
    if (!q) {
      q = openQueue(name, runtime.redis, prefix);
      queues.set(name, q);
    }
    return q;
  };
  stack.onClose(() => Promise.all([...queues.values()].map((q) => q.close())).then(() => undefined));
  return {
    source: { queue, redis: runtime.redis, warehouse: async () => warehouse, config: stack.config },
    dataDir: stack.dataDir,
    warehouse,
    redis: runtime.redis,
    prefix,
    queue,
    token: stack.token,
    fetch: stack.fetch,
    close: () => stack.close(),
  };
}

const PATHS = [
  '/quickstart',
  '/introduction',
  '/api-reference/authentication',
  '/api-reference/endpoint/create-project',
  '/guides/deploy-with-github',
  '/guides/custom-domains',
  '/components/code-blocks',
  '/settings/navigation',
  '/changelog',
  '/integrations/analytics',
];

/** Deterministic pseudo-random numbers, so screenshots and assertions are stable. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

export interface SeedResult {
  projectId: string;
  /** Days with a complete 1-day export, oldest first. */
  days: string[];
  /** Totals per day. */
  totals: Map<string, { human: number; ai: number; total: number }>;
  /** The week window exported as one window. */
  week: { dateFrom: string; dateTo: string; top: VisitorRow };
  /** Days in the range left without an export (gaps in the chart). */
  missing: string[];
  batchId: string;
  prLinks: string[];
}

interface RunSpec {
  projectId: string;
  dateFrom: string;
  dateTo: string;
  rows: VisitorRow[];
  startedAt: Date;
  durationMs: number;
}

async function exportCompleteRun(wh: Warehouse, spec: RunSpec): Promise<{ human: number; ai: number; total: number }> {
  const runId = `run-${randomUUID()}`;
  const window = { dataset: 'visitors', projectId: spec.projectId, dateFrom: spec.dateFrom, dateTo: spec.dateTo, kind: 'nightly' as const };
  await recordRunEvent(wh, { ...window, runId, status: 'running', startedAt: spec.startedAt, eventAt: spec.startedAt });
  await insertRowBatch(wh, { ...window, table: 'visitor_rows', runId, batchOffset: 0, batchEnd: 250, batchCursor: '', rows: spec.rows });
  // Site uniques: at least the busiest page, less than the sum (visitors read several pages).
  const sum = (key: 'human' | 'ai') => spec.rows.reduce((n, r) => n + r[key], 0);
  const human = Math.round(sum('human') * 0.62);
  const ai = Math.round(sum('ai') * 0.7);
  const totals = { human, ai, total: Math.round(human + ai * 0.85) };
  await completeRun(wh, {
    ...window,
    runId,
    startedAt: spec.startedAt,
    eventAt: new Date(spec.startedAt.getTime() + spec.durationMs),
    table: 'visitor_rows',
    totals: { table: 'visitor_window_totals', columns: totals },
    pages: 1,
    rows: spec.rows.length,
    requests: 1,
  });
  return totals;
}

function pageRows(random: () => number, scale: number): VisitorRow[] {
  return PATHS.map((path, i) => {
    const weight = 1 / (i + 1.3);
    const human = Math.round(scale * weight * (0.8 + random() * 0.4));
    const ai = Math.round(human * (0.15 + random() * 0.35));
    return { path, human, ai, total: human + Math.round(ai * 0.8) };
  });
}

/**
 * Seeds `dayCount` days of a project up to the day before `today` (@default today, UTC), leaving two days out as gaps, plus a
 * week window, a failed and a running run, and a prompt batch with every kind of outcome.
 */
export async function seedDashboardData(wh: Warehouse, options: { projectId?: string; dayCount?: number; today?: string } = {}): Promise<SeedResult> {
  const projectId = options.projectId ?? 'acme-docs';
  const dayCount = options.dayCount ?? 21;
  const random = seeded(42);
  const today = options.today ?? dayInTimeZone(new Date(), 'UTC');
  const first = addDays(today, -dayCount);
  const missing = [addDays(today, -9), addDays(today, -10)];
  const days: string[] = [];
  const totals = new Map<string, { human: number; ai: number; total: number }>();
  for (let day = first; day < today; day = addDays(day, 1)) {
    if (missing.includes(day)) continue;
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
    const weekend = weekday === 0 || weekday === 6;
    const trend = 1 + (days.length / dayCount) * 0.35;
    const rows = pageRows(random, (weekend ? 420 : 1000) * trend);
    const startedAt = new Date(Date.parse(`${addDays(day, 1)}T02:00:00Z`));
    totals.set(day, await exportCompleteRun(wh, { projectId, dateFrom: day, dateTo: addDays(day, 1), rows, startedAt, durationMs: 4000 + Math.round(random() * 9000) }));
    days.push(day);
  }

  const weekFrom = addDays(today, -7);
  const weekRows = pageRows(random, 5200);
  await exportCompleteRun(wh, { projectId, dateFrom: weekFrom, dateTo: today, rows: weekRows, startedAt: new Date(), durationMs: 21_000 });

  const failedAt = new Date(Date.now() - 3_600_000);
  await recordRunEvent(wh, { runId: `run-${randomUUID()}`, dataset: 'visitors', projectId, dateFrom: missing[1]!, dateTo: addDays(missing[1]!, 1), kind: 'backfill', status: 'running', startedAt: failedAt, eventAt: failedAt });
  const failedRunId = `run-${randomUUID()}`;
  await recordRunEvent(wh, { runId: failedRunId, dataset: 'visitors', projectId, dateFrom: missing[0]!, dateTo: addDays(missing[0]!, 1), kind: 'backfill', status: 'failed', pages: 3, rows: 750, requests: 3, error: 'page 4 breaks the total invariant: total 12 > human 5 + ai 6', startedAt: failedAt, eventAt: new Date(failedAt.getTime() + 8000) });

  const batchId = 'batch-2024-follow-ups';
  const prLinks = ['https://github.com/acme/docs/pull/101', 'https://github.com/acme/docs/pull/102', 'https://github.com/acme/docs/pull/105'];
  const sentAt = new Date(Date.now() - 1_800_000);
  const finishedAt = new Date(Date.now() - 600_000);
  const outcome = (i: number, status: PromptEvent['status'], extra: Partial<PromptEvent> = {}): PromptEvent => ({
    batchId,
    promptId: `p${String(i).padStart(3, '0')}`,
    projectId,
    jobId: `job-${i}`,
    status,
    version: 3,
    sentAt: status === 'queued' ? null : sentAt,
    finishedAt: ['completed', 'archived', 'failed', 'timed_out', 'rejected'].includes(status) ? finishedAt : null,
    polls: status === 'queued' ? 0 : 4,
    ...extra,
  });
  await insertPromptEvents(wh, [
    outcome(1, 'completed', { prLink: prLinks[0] }),
    outcome(2, 'completed', { prLink: prLinks[1] }),
    outcome(3, 'completed'),
    outcome(4, 'archived', { prLink: prLinks[2] }),
    outcome(5, 'polling'),
    outcome(6, 'queued'),
    outcome(7, 'failed', { error: 'agent job failed' }),
    outcome(8, 'ambiguous', { error: 'timeout after the request went out; not resent' }),
    outcome(9, 'rejected', { error: 'job not found' }),
    outcome(10, 'timed_out'),
    // An older state of prompt 1: the view must show only the latest.
    { ...outcome(1, 'polling'), version: 1 },
  ]);
  return {
    projectId,
    days,
    totals,
    week: { dateFrom: weekFrom, dateTo: today, top: weekRows.reduce((a, b) => (b.total > a.total ? b : a)) },
    missing,
    batchId,
    prLinks,
  };
}

/** Rows and findings of one complete run of any dataset, stored as an export stores them. */
export async function exportDatasetRun(
  wh: Warehouse,
  spec: { dataset: DatasetName; projectId: string; dateFrom: string; dateTo: string; rows: Record<string, unknown>[]; findings?: BatchFinding[]; startedAt?: Date },
): Promise<string> {
  const runId = `run-${randomUUID()}`;
  const { table, totalsTable } = getDataset(spec.dataset);
  const startedAt = spec.startedAt ?? new Date(Date.parse(`${spec.dateTo}T02:00:00Z`));
  const window = { dataset: spec.dataset, projectId: spec.projectId, dateFrom: spec.dateFrom, dateTo: spec.dateTo, kind: 'nightly' as const };
  await recordRunEvent(wh, { ...window, runId, status: 'running', startedAt, eventAt: startedAt });
  const batch = { ...window, runId, batchOffset: 0, batchEnd: spec.rows.length, batchCursor: '' };
  await insertRowBatch(wh, { ...batch, table, rows: spec.rows.map((row) => ({ extra: '{}', ...row })) });
  if (spec.findings?.length) await insertBatchFindings(wh, batch, spec.findings);
  if (totalsTable) throw new Error(`exportDatasetRun: ${spec.dataset} has window totals; seed it like visitors`);
  await completeRun(wh, { ...window, runId, startedAt, eventAt: new Date(startedAt.getTime() + 3000), table, pages: 1, rows: spec.rows.length, requests: 1 });
  return runId;
}

/**
 * An answer read with the real clock (a command, a server) and the UTC day it was read on; one whose
 * read spanned midnight is read again. With the seed's day, what "today" made of the answer is
 * known, so a run near midnight checks the same thing: a lag of `lagSince(seed)` days, not 0.
 */
export async function readOnOneDay<T>(read: () => Promise<T>): Promise<{ value: T; today: string }> {
  for (;;) {
    const before = dayInTimeZone(new Date(), 'UTC');
    const value = await read();
    const today = dayInTimeZone(new Date(), 'UTC');
    if (today === before) return { value, today };
  }
}

/** Days from the seed's today (its newest windows' end) to `today`: the lag of a fresh dataset. */
export function lagSince(seed: Pick<DatasetSeed, 'lastDateTo'>, today: string): number {
  return daysBetween(seed.lastDateTo, today);
}

export interface DatasetSeed {
  projectId: string;
  /** Per day with a complete 1-day assistant window: conversations answered and unanswered. */
  assistant: Map<string, { answered: number; unanswered: number }>;
  /** Per day with a complete 1-day feedback window: helpful, not helpful and unrated feedback. */
  feedback: Map<string, { helpful: number; notHelpful: number; unrated: number }>;
  /** Day of the 30 days before today with no assistant or feedback window (a gap in both charts). */
  gap: string;
  /** The newest complete windows' ends. */
  lastDateTo: string;
  /** Findings seeded per dataset and kind. */
  findings: { feedback: Record<string, number>; assistant: Record<string, number> };
  /** Windows of feedback whose latest run failed. */
  failedFeedbackWindows: number;
}

const TIME = (day: string, hour: number) => `${day} ${String(hour).padStart(2, '0')}:15:00.000`;

/**
 * Seeds assistant conversations and feedback of `dayCount` days up to the day before `today` (@default today, UTC) with one gap
 * day, a day whose assistant window completed empty, findings on the newest windows and one failed
 * feedback window.
 */
export async function seedDatasetData(wh: Warehouse, options: { projectId?: string; dayCount?: number; today?: string } = {}): Promise<DatasetSeed> {
  const projectId = options.projectId ?? 'acme-docs';
  const dayCount = options.dayCount ?? 14;
  const random = seeded(7);
  const today = options.today ?? dayInTimeZone(new Date(), 'UTC');
  const gap = addDays(today, -4);
  const empty = addDays(today, -6);
  const assistant = new Map<string, { answered: number; unanswered: number }>();
  const feedback = new Map<string, { helpful: number; notHelpful: number; unrated: number }>();
  const findings = { feedback: { invalid_text: 2 }, assistant: { cursor_restarted: 1 } };
  for (let day = addDays(today, -dayCount); day < today; day = addDays(day, 1)) {
    if (day === gap) continue;
    const dateTo = addDays(day, 1);
    const newest = dateTo === today;
    const answered = day === empty ? 0 : 5 + Math.floor(random() * 20);
    const unanswered = day === empty ? 0 : 1 + Math.floor(random() * 6);
    const conversations = Array.from({ length: answered + unanswered }, (_, i) => ({
      id: `${day}-c${i}`,
      timestamp: TIME(day, i % 24),
      query: `question ${i}`,
      response: i < answered ? 'an answer' : '',
      response_type: 'answer',
      resolution_status: i < answered ? 'answered' : 'unanswered',
      query_category: null,
      page_url: null,
      sources: [],
    }));
    await exportDatasetRun(wh, {
      dataset: 'assistant',
      projectId,
      dateFrom: day,
      dateTo,
      rows: conversations,
      findings: newest ? [{ kind: 'cursor_restarted', detail: 'the cursor was refused after a long wait; restarted from the first page' }] : [],
    });
    assistant.set(day, { answered, unanswered });

    const helpful = 2 + Math.floor(random() * 9);
    const notHelpful = Math.floor(random() * 5);
    const unrated = 1 + Math.floor(random() * 3);
    const item = (i: number, kind: 'helpful' | 'not' | 'unrated') => ({
      id: `${day}-f${i}`,
      path: PATHS[i % PATHS.length],
      source: kind === 'unrated' ? 'code_snippet' : 'contextual',
      status: 'pending',
      comment: null,
      created_at: TIME(day, i % 24),
      helpful: kind === 'unrated' ? null : kind === 'helpful',
      contact: null,
      code: kind === 'unrated' ? 'npm i' : null,
      filename: null,
      lang: null,
    });
    const items = [
      ...Array.from({ length: helpful }, (_, i) => item(i, 'helpful')),
      ...Array.from({ length: notHelpful }, (_, i) => item(helpful + i, 'not')),
      ...Array.from({ length: unrated }, (_, i) => item(helpful + notHelpful + i, 'unrated')),
    ];
    if (newest) {
      // An earlier export of the same window, superseded: its rows and findings are no longer what readers see.
      const startedAt = new Date(Date.parse(`${dateTo}T01:00:00Z`));
      await exportDatasetRun(wh, { dataset: 'feedback', projectId, dateFrom: day, dateTo, rows: items.slice(0, 1), findings: [{ kind: 'short_page', detail: 'superseded' }], startedAt });
    }
    await exportDatasetRun(wh, {
      dataset: 'feedback',
      projectId,
      dateFrom: day,
      dateTo,
      rows: items,
      findings: newest ? [{ kind: 'invalid_text', detail: 'comment of f1 had a lone surrogate' }, { kind: 'invalid_text', detail: 'comment of f2 had a lone surrogate' }] : [],
    });
    feedback.set(day, { helpful, notHelpful, unrated });
  }
  // A week window of each, exported as one window: never part of any day of the charts.
  const weekFrom = addDays(today, -7);
  const weekRow = (i: number) => ({ id: `week-c${i}`, timestamp: TIME(weekFrom, 1), query: 'q', response: 'a', response_type: 'answer', resolution_status: 'answered', query_category: null, page_url: null, sources: [] });
  await exportDatasetRun(wh, { dataset: 'assistant', projectId, dateFrom: weekFrom, dateTo: today, rows: Array.from({ length: 40 }, (_, i) => weekRow(i)), startedAt: new Date(Date.now() - 60_000) });
  const weekItem = (i: number) => ({ id: `week-f${i}`, path: '/quickstart', source: 'contextual', status: 'pending', comment: null, created_at: TIME(weekFrom, 1), helpful: true, contact: null, code: null, filename: null, lang: null });
  await exportDatasetRun(wh, { dataset: 'feedback', projectId, dateFrom: weekFrom, dateTo: today, rows: Array.from({ length: 30 }, (_, i) => weekItem(i)), startedAt: new Date(Date.now() - 60_000) });
  // The gap day's feedback was tried and failed: a failed window, and still a gap in the chart.
  const failedAt = new Date(Date.now() - 7_200_000);
  await recordRunEvent(wh, { runId: `run-${randomUUID()}`, dataset: 'feedback', projectId, dateFrom: gap, dateTo: addDays(gap, 1), kind: 'nightly', status: 'failed', error: 'feedback page 2: repeated cursor', startedAt: failedAt, eventAt: failedAt });
  return { projectId, assistant, feedback, gap, lastDateTo: today, findings, failedFeedbackWindows: 1 };
}
