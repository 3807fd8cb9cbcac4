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

describe('status text', () => {
  it('warns loudly when Redis does not keep what BullMQ writes, naming what is missing, and not otherwise', () => {
    const volatile = statusText(report({ durable: false, problems: ['127.0.0.1:6379: appendonly no'] }));
    expect(volatile).toMatch(/^warning: Redis is not durable \(127\.0\.0\.1:6379: appendonly no\)/m);
    expect(statusText(report({ durable: true, problems: [] }))).not.toMatch(/not durable/);
  });
});
