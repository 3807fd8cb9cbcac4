/**
 * A `MINTPIPE_` variable that no setting reads, but that reads like one (`MINTPIPE_PROJECT` for
 * `MINTPIPE_PROJECTS`, a name in lower case), is a typo whose value would be dropped in silence:
 * the nightly run would export no project at all. Other `MINTPIPE_` names are left alone: docker
 * compose reads `MINTPIPE_IMAGE` and `MINTPIPE_DASHBOARD_PUBLISH` from the same shell.
 */

/** Every `MINTPIPE_` variable mintpipe reads (test/config/config-misspelled checks it against the code). */
export const SETTING_NAMES = [
  'MINTPIPE_ALLOW_VOLATILE_REDIS',
  'MINTPIPE_ANALYTICS_RATE',
  'MINTPIPE_ASSISTANT_THREADS',
  'MINTPIPE_BATCH_ROWS',
  'MINTPIPE_CREATE_BUDGET',
  'MINTPIPE_DASHBOARD_HOST',
  'MINTPIPE_DASHBOARD_HOSTS',
  'MINTPIPE_DASHBOARD_PORT',
  'MINTPIPE_DASHBOARD_TOKEN',
  'MINTPIPE_DATASETS',
  'MINTPIPE_DATA_DIR',
  'MINTPIPE_EXPORT_CONCURRENCY',
  'MINTPIPE_FOLLOW_GRACE',
  'MINTPIPE_GATEWAY_CONCURRENCY',
  'MINTPIPE_HTTP_TIMEOUT',
  'MINTPIPE_LOCK_DURATION',
  'MINTPIPE_MAX_BODY',
  'MINTPIPE_MAX_PAGES',
  'MINTPIPE_MESSAGE_RATE',
  'MINTPIPE_METRICS_PORT',
  'MINTPIPE_PII',
  'MINTPIPE_POLL_INITIAL',
  'MINTPIPE_POLL_MAX',
  'MINTPIPE_POLL_SETTLE',
  'MINTPIPE_PREFETCH_PAGES',
  'MINTPIPE_PROJECTS',
  'MINTPIPE_PROMPT_CONCURRENCY',
  'MINTPIPE_PROMPT_DEADLINE',
  'MINTPIPE_PROMPT_MAX_BYTES',
  'MINTPIPE_PROMPT_RETENTION',
  'MINTPIPE_QUEUE_PREFIX',
  'MINTPIPE_REAP_AFTER',
  'MINTPIPE_RECIPES_DIR',
  'MINTPIPE_REEXPORT_DAYS',
  'MINTPIPE_RETRY_ATTEMPTS',
  'MINTPIPE_RETRY_MAX_TIME',
  'MINTPIPE_SCHEDULE_CRON',
  'MINTPIPE_SCHEDULE_MONTHLY',
  'MINTPIPE_SCHEDULE_TZ',
  'MINTPIPE_SCHEDULE_WEEKLY',
  'MINTPIPE_SHUTDOWN_GRACE',
  'MINTPIPE_STALLED_INTERVAL',
  'MINTPIPE_TRIAGE',
  'MINTPIPE_TRIAGE_MAX_JOBS',
  'MINTPIPE_UNSTABLE_RETRIES',
  'MINTPIPE_USE_DIST',
] as const;

/** Edits (insert, delete, replace, swap two neighbours) that still make a name a typo of another. */
const MAX_EDITS = 2;

/** The first variable of `env` that reads like a setting but is none, with the setting meant. */
export function misspelledSetting(env: Record<string, string | undefined>): { key: string; meant: string } | undefined {
  const known = SETTING_NAMES as readonly string[];
  for (const key of Object.keys(env)) {
    const upper = key.toUpperCase();
    if (!upper.startsWith('MINTPIPE_') || known.includes(key)) continue;
    let best: { meant: string; edits: number } | undefined;
    for (const name of known) {
      const edits = editDistance(upper, name);
      if (edits <= MAX_EDITS && (best === undefined || edits < best.edits)) best = { meant: name, edits };
    }
    if (best) return { key, meant: best.meant };
  }
  return undefined;
}

/** Optimal string alignment distance: Levenshtein plus the swap of two neighbouring characters. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
