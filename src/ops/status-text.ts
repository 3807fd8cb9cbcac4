/** `mintpipe status` as text: the running installation first, then queues, datasets and runs. */
import { heartbeatLate, type InstallationProcess, type InstallationSettings } from '../queue/installation-info.js';
import { shortFingerprint } from '../queue/key-fingerprint.js';
import type { RunJob } from './job-holds.js';
import type { DatasetStatus, StatusReport } from './status-report.js';
import { inertLine } from '../inert-text.js';

const list = (items: readonly string[], none: string) => (items.length ? items.join(', ') : none);

function processLine(p: InstallationProcess): string {
  const works = p.queues.length ? `workers ${p.queues.join(',')}` : 'no workers';
  return `  ${p.role.padEnd(6)} pid ${p.pid} on ${p.host}   since ${p.startedAt}   v${p.version}   ${works}${p.scheduler ? '   scheduler' : ''}${silence(p)}`;
}

/** Where the process's requests go and its rows land (records of older versions do not say). */
function targetLine(p: InstallationProcess): string[] {
  if (!p.upstream && !p.warehouse) return [];
  const upstream = p.upstream
    ? `upstream ${p.upstream.url}${p.upstream.builtInEmulator ? ' (built-in emulator)' : ''} key ${shortFingerprint(p.upstream.keyFingerprint)}`
    : 'upstream not published';
  return [`         ${upstream}   warehouse ${p.warehouse ?? 'not published'}`];
}

function silence(p: InstallationProcess): string {
  return heartbeatLate(p) ? `   no heartbeat for ${Math.round(p.heartbeat!.agoMs / 1000)}s: it may have stopped` : '';
}

function settingsLines(s: InstallationSettings, budget: StatusReport['analyticsBudget']): string[] {
  const used = `used ${budget.usedInWindow}${budget.pausedForMs ? `, paused ${Math.ceil(budget.pausedForMs / 1000)}s` : ''}`;
  return [
    `  analytics budget ${s.analyticsRate} (${used})   message budget ${s.messageRate}`,
    `  nightly "${s.nightly.cron}" ${s.nightly.timezone}   projects ${list(s.projects, 'none (set MINTPIPE_PROJECTS)')}`,
    `  datasets ${list(s.datasets, 'none')}   assistant threads ${list(s.assistantThreads, 'none')}`,
  ];
}

function findingsText(findings: Record<string, number>): string {
  const kinds = Object.entries(findings);
  return kinds.length ? kinds.map(([kind, n]) => `${kind} ${n}`).join(', ') : '-';
}

function datasetLines(rows: DatasetStatus[]): string[] {
  const table = rows.map((r) => [
    r.dataset,
    r.projectId ?? '(no project)',
    r.lastWindow ? `${r.lastWindow.dateFrom}..${r.lastWindow.dateTo}` : r.enabled ? 'none yet' : 'none',
    r.lagDays === null ? '-' : `${r.lagDays} d`,
    r.lastWindow ? String(r.lastWindow.rows) : '-',
    String(r.failedWindows),
    findingsText(r.findings),
  ]);
  const head = ['dataset', 'project', 'last complete window', 'lag', 'rows', 'failed', 'findings'];
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `  ${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}`.trimEnd();
  return [line(head), ...table.map(line)];
}

/** What a running run's line adds about its job: nothing while a worker holds it. */
const RUN_JOB: Record<RunJob, string> = {
  held: '',
  stalled: ' (stalled: the process running it stopped; a worker takes it back and resumes it)',
  queued: ' (queued to run again)',
};

/**
 * Queued or stalled work that no running process serves: it waits until a worker starts. Workers
 * still connected without a heartbeat (a suspended process) hold connections but run nothing.
 */
function unservedLines(status: StatusReport): string[] {
  const lines: string[] = [];
  for (const q of status.queues) {
    const c = q.counts;
    // Each schedule keeps its next run as one delayed job: that is the schedule, not work left.
    const scheduled = q.name === 'export' ? status.schedules.length : 0;
    const jobs = (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.active ?? 0) + Math.max(0, (c.delayed ?? 0) - scheduled);
    if (status.installation.processes.some((p) => p.queues.includes(q.name))) continue;
    if (jobs === 0) {
      if (scheduled) lines.push(`note: no running process works the ${q.name} queue: the nightly schedule's next run waits for one; \`mintpipe start\` runs it`);
      continue;
    }
    const stalled = q.stalled ? ` (${q.stalled} of them stalled)` : '';
    const connected = q.workers ? `; its ${q.workers} connected worker${q.workers === 1 ? ' has' : 's have'} no heartbeat: suspended or hung?` : '';
    lines.push(`note: ${jobs} ${q.name} job${jobs === 1 ? '' : 's'}${stalled} and no running process works the ${q.name} queue${connected}; \`mintpipe start\` or \`mintpipe worker\` runs them`);
  }
  return lines;
}

export function statusText(status: StatusReport): string {
  const out: string[] = [];
  const { installation } = status;
  out.push(`redis ${status.redis}   prefix ${status.queuePrefix}`);
  if (!status.redisDurability.durable) {
    out.push(`warning: Redis is not durable (${status.redisDurability.problems.join('; ')}): a restart or a full memory loses queued jobs; use appendonly yes and maxmemory-policy noeviction`);
  }
  if (installation.running) {
    const n = installation.processes.length;
    out.push(`installation: ${n} process${n === 1 ? '' : 'es'} running; the settings ${n === 1 ? 'it uses' : 'they use'}:`);
    for (const p of installation.processes) out.push(processLine(p), ...targetLine(p));
  } else {
    out.push('installation: nothing running (no start or worker process has published itself on this Redis and prefix); the settings this shell would use:');
  }
  out.push(...settingsLines(installation.settings, status.analyticsBudget));
  for (const d of installation.disagreements) out.push(`warning: ${d}`);

  for (const q of status.queues) {
    const c = q.counts;
    const stalled = q.stalled ? ` (${q.stalled} stalled)` : '';
    out.push(`queue ${q.name.padEnd(8)} workers ${q.workers}  waiting ${(c.waiting ?? 0) + (c.prioritized ?? 0)}  active ${c.active}${stalled}  delayed ${c.delayed}  completed ${c.completed}  failed ${c.failed}`);
  }
  out.push(...unservedLines(status));
  if (status.schedules.length === 0) out.push('schedules: none (run `mintpipe start` to install the nightly schedule)');
  for (const s of status.schedules) out.push(`schedule ${s.id}: "${s.pattern}" ${s.tz ?? 'UTC'} next ${s.next ?? '-'}`);

  const { datasets } = status;
  if (!datasets.readable) out.push(`datasets: ${datasets.note}`);
  else out.push(`datasets${datasets.via === 'gateway' ? ' (warehouse read through the running installation)' : ''}:`);
  if (datasets.rows.length === 0) out.push('  none exported yet and none enabled');
  else out.push(...datasetLines(datasets.rows));
  const withFindings = datasets.rows.filter((r) => Object.keys(r.findings).length > 0);
  if (withFindings.length) {
    const which = withFindings.map((r) => `${r.dataset}${r.projectId ? ` of ${r.projectId}` : ''} (${findingsText(r.findings)})`).join('; ');
    out.push(`warning: data-quality findings in ${which}; see mintpipe query "SELECT * FROM data_quality"`);
  }
  const failing = datasets.rows.filter((r) => r.failedWindows > 0);
  if (failing.length) out.push(`warning: failed windows in ${failing.map((r) => `${r.dataset}${r.projectId ? ` of ${r.projectId}` : ''} (${r.failedWindows})`).join('; ')}`);

  if (status.lastRuns.length === 0) out.push(datasets.readable ? 'last runs: none in the warehouse' : 'last runs: not read (see datasets)');
  // A run's error is upstream text: one line, inert, whatever it holds.
  for (const r of status.lastRuns) {
    out.push(inertLine(`run ${r.dataset} ${r.project} ${r.window} ${r.kind} ${r.status}${RUN_JOB[r.job ?? 'held']} ${r.rows} rows ${r.requests} requests${r.error ? ` — ${r.error}` : ''}`));
  }
  return `${out.join('\n')}\n`;
}
