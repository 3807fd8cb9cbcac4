import { describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/ops/status-report.js';
import { statusText } from '../../src/ops/status-text.js';

function report(redisDurability: StatusReport['redisDurability']): StatusReport {
  return {
    redis: 'redis://127.0.0.1:6379',
    redisDurability,
    queuePrefix: 'mintpipe',
    installation: {
      running: false,
      processes: [],
      settingsFrom: 'local',
      settings: { analyticsRate: '100/1h', messageRate: '100/1h', nightly: { cron: '0 2 * * *', timezone: 'UTC' }, projects: [], datasets: ['visitors'], assistantThreads: [] },
      disagreements: [],
    },
    analyticsBudget: { rate: '100/1h', usedInWindow: 0, pausedForMs: 0 },
    queues: [],
    schedules: [],
    datasets: { readable: true, via: 'embedded', rows: [] },
    lastRuns: [],
  } as StatusReport;
}

function runningReport(heartbeat: { everyMs: number; agoMs: number }): StatusReport {
  const base = report({ durable: true, problems: [] });
  const process = {
    role: 'start' as const,
    pid: 4242,
    host: 'box',
    startedAt: '2026-11-25T10:00:00.000Z',
    version: '0.1.0',
    queues: ['export' as const],
    scheduler: true,
    settings: base.installation.settings,
    heartbeat,
  };
  return { ...base, installation: { ...base.installation, running: true, processes: [process] } } as StatusReport;
}

describe('status text', () => {
  it('says when a listed process has missed its heartbeat by half a period or more: it may have been killed', () => {
    expect(statusText(runningReport({ everyMs: 10_000, agoMs: 16_400 }))).toMatch(/^ {2}start +pid 4242 on box .* scheduler {3}no heartbeat for 16s: it may have stopped$/m);
    expect(statusText(runningReport({ everyMs: 10_000, agoMs: 14_000 }))).not.toMatch(/heartbeat/);
  });

  it('warns loudly when Redis does not keep what BullMQ writes, naming what is missing, and not otherwise', () => {
    const volatile = statusText(report({ durable: false, problems: ['127.0.0.1:6379: appendonly no'] }));
    expect(volatile).toMatch(/^warning: Redis is not durable \(127\.0\.0\.1:6379: appendonly no\)/m);
    expect(statusText(report({ durable: true, problems: [] }))).not.toMatch(/not durable/);
  });

  it('shows runs with the status export_runs stores and the lag in whole days', () => {
    const base = report({ durable: true, problems: [] });
    const text = statusText({
      ...base,
      datasets: { readable: true, via: 'embedded', rows: [{ dataset: 'visitors', projectId: 'acme', lastWindow: { dateFrom: '2026-11-20', dateTo: '2026-11-21', runId: 'r1', rows: 5 }, lagDays: 3, failedWindows: 0, findings: {}, enabled: true }] },
      lastRuns: [{ dataset: 'visitors', project: 'acme', window: '2026-11-20..2026-11-21', kind: 'manual', status: 'complete', rows: 5, requests: 2, finishedAt: null, error: null, job: null }],
    });
    expect(text).toMatch(/^ {2}visitors +acme +2026-11-20\.\.2026-11-21 +3 d +5 +0 +-$/m);
    expect(text).toMatch(/^run visitors acme 2026-11-20\.\.2026-11-21 manual complete 5 rows 2 requests$/m);
  });

  it('names queue states in BullMQ\'s words: delayed jobs are not counted as waiting', () => {
    const base = report({ durable: true, problems: [] });
    const text = statusText({ ...base, queues: [{ name: 'export', workers: 1, counts: { waiting: 0, prioritized: 0, active: 0, delayed: 1, completed: 0, failed: 0 }, stalled: 0 }] });
    expect(text).toMatch(/^queue export +workers 1 {2}waiting 0 {2}active 0 {2}delayed 1 /m);
  });

  it('counts stalled active jobs, and says when queued work has no running process to work it', () => {
    const counts = { waiting: 5, prioritized: 2, active: 3, delayed: 1, completed: 0, failed: 0 };
    const idle = { waiting: 0, prioritized: 0, active: 0, delayed: 0, completed: 4, failed: 0 };
    const unserved = statusText({ ...report({ durable: true, problems: [] }), queues: [{ name: 'export', workers: 0, counts, stalled: 3 }, { name: 'prompts', workers: 0, counts: idle, stalled: 0 }] });
    expect(unserved).toMatch(/^queue export +workers 0 {2}waiting 7 {2}active 3 \(3 stalled\) {2}delayed 1 /m);
    expect(unserved).toMatch(/^note: 11 export jobs \(3 of them stalled\) and no running process works the export queue; `mintpipe start` or `mintpipe worker` runs them$/m);
    // An empty queue needs no worker.
    expect(unserved).not.toMatch(/prompts queue/);

    const suspended = statusText({ ...report({ durable: true, problems: [] }), queues: [{ name: 'prompts', workers: 1, counts: { ...idle, delayed: 1 }, stalled: 0 }] });
    expect(suspended).toMatch(/^note: 1 prompts job and no running process works the prompts queue; its 1 connected worker has no heartbeat: suspended or hung\?; /m);
    expect(suspended).toMatch(/^queue prompts +workers 1 {2}waiting 0 {2}active 0 {2}delayed 1 /m);

    // The nightly schedule's next run is a delayed job: not work left.
    const scheduled = statusText({
      ...report({ durable: true, problems: [] }),
      queues: [{ name: 'export', workers: 0, counts: { ...idle, delayed: 1 }, stalled: 0 }],
      schedules: [{ id: 'nightly', pattern: '0 2 * * *', tz: 'UTC', next: '2026-11-28T02:00:00.000Z' }],
    });
    expect(scheduled).toMatch(/^note: no running process works the export queue: the nightly schedule's next run waits for one; `mintpipe start` runs it$/m);
    expect(scheduled).not.toMatch(/export job/);

    // A process that works the queue (alive by its heartbeat) serves it: no note; only its stalled count.
    const served = runningReport({ everyMs: 10_000, agoMs: 0 });
    const text = statusText({ ...served, queues: [{ name: 'export', workers: 1, counts, stalled: 1 }] });
    expect(text).toMatch(/active 3 \(1 stalled\)/);
    expect(text).not.toMatch(/^note:/m);
  });

  it('says which running runs a worker no longer holds, and which wait to run again', () => {
    const base = report({ durable: true, problems: [] });
    const run = { dataset: 'visitors', project: 'acme', kind: 'manual', status: 'running', rows: 0, requests: 0, finishedAt: null, error: null };
    const text = statusText({
      ...base,
      lastRuns: [
        { ...run, window: '2026-11-20..2026-11-21', job: 'stalled' },
        { ...run, window: '2026-11-21..2026-11-22', job: 'queued' },
        { ...run, window: '2026-11-22..2026-11-23', job: 'held' },
        { ...run, window: '2026-11-23..2026-11-24', job: null },
      ],
    });
    expect(text).toMatch(/^run visitors acme 2026-11-20\.\.2026-11-21 manual running \(stalled: the process running it stopped; a worker takes it back and resumes it\) 0 rows 0 requests$/m);
    expect(text).toMatch(/^run visitors acme 2026-11-21\.\.2026-11-22 manual running \(queued to run again\) 0 rows 0 requests$/m);
    expect(text).toMatch(/^run visitors acme 2026-11-22\.\.2026-11-23 manual running 0 rows 0 requests$/m);
    expect(text).toMatch(/^run visitors acme 2026-11-23\.\.2026-11-24 manual running 0 rows 0 requests$/m);
  });

  it("shows each process's upstream (and whether it is the built-in emulator) and warehouse, the key by fingerprint only", () => {
    const base = runningReport({ everyMs: 10_000, agoMs: 0 });
    const [p] = base.installation.processes;
    const upstream = { url: 'http://127.0.0.1:4711', builtInEmulator: true, keyFingerprint: 'abcdef0123456789'.repeat(4) };
    const text = statusText({ ...base, installation: { ...base.installation, processes: [{ ...p!, upstream, warehouse: 'embedded /srv/.data/clickhouse' }] } });
    expect(text).toMatch(/^ {2}start +pid 4242 .*\n {9}upstream http:\/\/127\.0\.0\.1:4711 \(built-in emulator\) key abcdef01 {3}warehouse embedded \/srv\/\.data\/clickhouse$/m);
    expect(text).not.toContain('abcdef0123');
  });
});
