// The mintpipe dashboard page: reads /api/* and draws the panels. State (project, range, window)
// lives in the URL hash so a view can be shared or reloaded.

import { renderDailyChart } from './charts.js';
import { renderSplitChart } from './split-chart.js';
import { loadFixes } from './fixes.js';
import {
  el,
  emptyState,
  formatLagDays,
  formatDuration,
  formatNumber,
  formatTime,
  formatWeekday,
  formatWindow,
  problemState,
  safeLink,
  table,
} from './format.js';

const REFRESH_MS = 60_000;
const PROMPT_STATUSES = ['completed', 'archived', 'polling', 'sending', 'queued', 'ambiguous', 'timed_out', 'rejected', 'failed'];
const STATUS_LABELS = { timed_out: 'timed out' };

const $ = (id) => document.getElementById(id);
const code = (text) => el('code', {}, text);

const state = readHash();
let lastDaily = null;

// The per-day charts beyond visitors: each a dataset's 1-day windows split in parts that add up.
const SPLITS = [
  {
    id: 'assistant',
    path: 'assistant-daily',
    dataset: 'assistant',
    label: 'Assistant conversations per day',
    series: [
      { key: 'answered', label: 'Answered', cls: 'answered' },
      { key: 'unanswered', label: 'Unanswered', cls: 'unanswered' },
    ],
    notes: [],
    data: null,
  },
  {
    id: 'feedback',
    path: 'feedback-daily',
    dataset: 'feedback',
    label: 'Feedback per day',
    series: [
      { key: 'helpful', label: 'Helpful', cls: 'helpful' },
      { key: 'notHelpful', label: 'Not helpful', cls: 'not-helpful' },
    ],
    notes: [{ key: 'unrated', label: 'Unrated' }],
    data: null,
  },
];

function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const days = Number(params.get('days'));
  return { project: params.get('project') ?? '', days: days === 90 ? 90 : 30, window: params.get('window') ?? '' };
}

function writeHash() {
  const params = new URLSearchParams();
  if (state.project) params.set('project', state.project);
  params.set('days', String(state.days));
  if (state.window) params.set('window', state.window);
  history.replaceState(null, '', `#${params}`);
}

async function api(path, params = {}) {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== ''));
  const response = await fetch(`/api/${path}${query.size ? `?${query}` : ''}`, { headers: { accept: 'application/json' } });
  let body;
  try {
    body = await response.json();
  } catch {
    body = {};
  }
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

function showProblem(target, title, err) {
  target.replaceChildren(problemState(title, err instanceof Error ? err.message : String(err)));
}

// ---- queues (header) -------------------------------------------------------------------------

async function loadQueues() {
  const pills = $('queue-pills');
  try {
    const { queues } = await api('queues');
    pills.replaceChildren(
      ...queues.map((q) => {
        const c = q.counts;
        // BullMQ's own words, as `status` and the queue board show them: a delayed job is not waiting.
        const waiting = (c.waiting ?? 0) + (c.prioritized ?? 0) + (c['waiting-children'] ?? 0);
        return el(
          'a',
          { class: 'pill', href: `/queues/queue/${encodeURIComponent(q.name)}`, title: `${q.workers} worker(s) connected` },
          el('span', { class: `dot${q.workers > 0 ? ' on' : ''}` }),
          el('b', {}, q.name),
          `${formatNumber(c.active ?? 0)} active · ${formatNumber(waiting)} waiting · ${formatNumber(c.delayed ?? 0)} delayed`,
          // Active jobs whose worker stopped: they move again only once a worker takes them back.
          q.stalled ? el('span', { class: 'failed', title: 'active jobs no worker holds: the process running them stopped' }, ` · ${formatNumber(q.stalled)} stalled`) : null,
          c.failed ? el('span', { class: 'failed' }, ` · ${formatNumber(c.failed)} failed`) : null,
        );
      }),
    );
  } catch (err) {
    pills.replaceChildren(el('span', { class: 'pill' }, el('span', { class: 'failed' }, `queues unavailable: ${err.message}`)));
  }
}

// ---- projects and daily visitors --------------------------------------------------------------

async function loadProjects() {
  const select = $('project');
  const { projects } = await api('projects');
  if (!projects.includes(state.project)) state.project = projects[0] ?? '';
  select.replaceChildren(...(projects.length ? projects.map((p) => el('option', { value: p }, p)) : [el('option', { value: '' }, 'no projects yet')]));
  select.value = state.project;
  select.disabled = projects.length === 0;
  return projects;
}

function noProjects() {
  const howTo = [
    'Export a range with ',
    code('npx mintpipe export --project <id> --from 2024-05-01 --to 2024-06-01 --wait'),
    ', or set ',
    code('MINTPIPE_PROJECTS'),
    ' and let the nightly run fill it in.',
  ];
  $('tiles').replaceChildren();
  $('chart').replaceChildren(emptyState('No exports in the warehouse yet', ...howTo));
  $('chart-legend').hidden = true;
  $('window').replaceChildren(el('option', { value: '' }, 'no windows yet'));
  $('window').disabled = true;
  $('pages').replaceChildren(emptyState('No windows to show', 'Top pages appear once a window has been exported completely.'));
  for (const split of SPLITS) {
    split.data = null;
    $(`${split.id}-legend`).hidden = true;
    $(`${split.id}-chart`).replaceChildren(emptyState(`No ${split.dataset} exports yet`, 'Days appear once their 1-day window is exported completely.'));
  }
  $('freshness').replaceChildren(emptyState('No datasets exported yet', 'Each dataset appears once a window of it has been exported.'));
}

function tile(label, value, detail) {
  return el('div', { class: 'tile' }, el('div', { class: 'label' }, label), el('div', { class: 'value' }, value), el('div', { class: 'detail' }, detail));
}

function renderTiles(data) {
  const withData = data.days.filter((d) => d.counts);
  const latest = withData.at(-1);
  const busiest = withData.reduce((best, d) => (!best || d.counts.total > best.counts.total ? d : best), null);
  const tiles = [];
  if (latest) {
    tiles.push(
      tile('Latest complete day', formatNumber(latest.counts.total), `${formatWeekday(latest.date)} · ${formatNumber(latest.counts.human)} human · ${formatNumber(latest.counts.ai)} AI`),
    );
  }
  // Counted by the server as `status` counts it: whole days from the end of the last complete window.
  if (data.lagDays !== null && data.lagDays !== undefined) {
    tiles.push(tile('Export lag', formatLagDays(data.lagDays), 'days from the end of the last complete visitors window to today (UTC)'));
  }
  const missing = data.days.length - withData.length;
  tiles.push(tile('Days exported', `${withData.length} / ${data.days.length}`, missing ? `${missing} day(s) without a complete 1-day export` : 'every day of the range is complete'));
  if (busiest) tiles.push(tile('Busiest day', formatNumber(busiest.counts.total), formatWeekday(busiest.date)));
  $('tiles').replaceChildren(...tiles);
}

function drawChart() {
  const chart = $('chart');
  if (!lastDaily) return;
  if (!lastDaily.days.some((d) => d.counts)) {
    $('chart-legend').hidden = true;
    chart.replaceChildren(
      emptyState(
        `No daily exports of ${lastDaily.project} in the last ${state.days} days`,
        'The chart draws 1-day windows only (a week or month cannot be split into days: uniques are not additive). Export days with ',
        code(`npx mintpipe export --project ${lastDaily.project} --from ${lastDaily.from} --to ${lastDaily.to} --grain day`),
        '.',
      ),
    );
    return;
  }
  $('chart-legend').hidden = false;
  renderDailyChart(chart, lastDaily.days, $('tooltip'));
}

async function loadDaily() {
  const chart = $('chart');
  chart.setAttribute('aria-busy', 'true');
  try {
    lastDaily = await api('daily', { project: state.project, days: state.days });
    renderTiles(lastDaily);
    drawChart();
  } catch (err) {
    lastDaily = null;
    $('tiles').replaceChildren();
    showProblem(chart, 'Could not read daily visitors', err);
  } finally {
    chart.setAttribute('aria-busy', 'false');
  }
}

// ---- assistant and feedback per day ----------------------------------------------------------

function drawSplit(split) {
  const chart = $(`${split.id}-chart`);
  if (!split.data) return;
  if (!split.data.days.some((d) => d.counts)) {
    $(`${split.id}-legend`).hidden = true;
    chart.replaceChildren(
      emptyState(
        `No daily ${split.dataset} exports of ${split.data.project} in the last ${state.days} days`,
        'Export days with ',
        code(`npx mintpipe export --project ${split.data.project} --dataset ${split.dataset} --from ${split.data.from} --to ${split.data.to} --grain day`),
        '.',
      ),
    );
    return;
  }
  $(`${split.id}-legend`).hidden = false;
  renderSplitChart(chart, split.data.days, split, $('tooltip'));
}

async function loadSplit(split) {
  const chart = $(`${split.id}-chart`);
  chart.setAttribute('aria-busy', 'true');
  try {
    split.data = await api(split.path, { project: state.project, days: state.days });
    drawSplit(split);
  } catch (err) {
    split.data = null;
    $(`${split.id}-legend`).hidden = true;
    showProblem(chart, `Could not read ${split.dataset} per day`, err);
  } finally {
    chart.setAttribute('aria-busy', 'false');
  }
}

const loadSplits = () => Promise.all(SPLITS.map(loadSplit));

// ---- dataset freshness -------------------------------------------------------------------------

async function loadFreshness() {
  const target = $('freshness');
  try {
    const { datasets } = await api('freshness', { project: state.project });
    if (datasets.length === 0) {
      target.replaceChildren(emptyState(`No datasets of ${state.project} yet`, 'Each dataset appears once a window of it has been exported, or once the nightly plan includes it.'));
      return;
    }
    const rows = datasets.map((d) => {
      const findings = Object.entries(d.findings);
      return el(
        'tr',
        { 'data-dataset': d.dataset },
        el('td', {}, el('div', { class: 'mono' }, d.dataset), d.enabled ? null : el('div', { class: 'muted small' }, 'not in the nightly plan')),
        el('td', {}, d.lastWindow ? formatWindow(d.lastWindow.dateFrom, d.lastWindow.dateTo) : el('span', { class: 'muted' }, 'none yet')),
        el('td', { class: `num lag${d.lagDays !== null && d.lagDays > 1 ? ' lag-stale' : ''}` }, d.lagDays === null ? '—' : formatLagDays(d.lagDays)),
        el('td', { class: 'num' }, d.lastWindow ? formatNumber(d.lastWindow.rows) : '—'),
        el('td', { class: 'num' }, d.failedWindows ? el('span', { class: 'badge failed' }, formatNumber(d.failedWindows)) : '0'),
        el('td', {}, findings.length ? el('div', { class: 'findings' }, findings.map(([kind, n]) => el('span', { class: 'badge unstable finding', title: kind }, `${kind.replaceAll('_', ' ')} ${formatNumber(n)}`))) : el('span', { class: 'muted' }, 'none')),
      );
    });
    target.replaceChildren(
      table([{ label: 'Dataset' }, { label: 'Last complete window' }, { label: 'Lag', num: true }, { label: 'Rows', num: true }, { label: 'Failed', num: true }, { label: 'Findings' }], rows),
    );
  } catch (err) {
    showProblem(target, 'Could not read the datasets', err);
  }
}

// ---- running installation ----------------------------------------------------------------------

function settingsList(s) {
  const list = (items, none) => (items.length ? items.join(', ') : none);
  const entries = [
    ['Analytics budget', s.analyticsRate],
    ['Message budget', s.messageRate],
    ['Nightly', `${s.nightly.cron} (${s.nightly.timezone})`],
    ['Projects', list(s.projects, 'none (set MINTPIPE_PROJECTS)')],
    ['Datasets', list(s.datasets, 'none')],
    ['Assistant threads', list(s.assistantThreads, 'none')],
  ];
  return el('dl', { class: 'settings' }, entries.flatMap(([k, v]) => [el('dt', {}, k), el('dd', { 'data-setting': k }, v)]));
}

async function loadInstallation() {
  const target = $('installation');
  try {
    const view = await api('installation');
    const head = view.running
      ? view.processes.map((p) =>
          el(
            'div',
            { class: 'process', 'data-role': p.role },
            el('div', { class: 'process-head' }, el('b', {}, p.role), el('span', { class: 'mono' }, `pid ${p.pid} on ${p.host}`), el('span', { class: 'muted small' }, `v${p.version} · since ${formatTime(p.startedAt)}`)),
            el('div', { class: 'muted small' }, `${p.queues.length ? `workers: ${p.queues.join(', ')}` : 'no workers'}${p.scheduler ? ' · installs the nightly schedule' : ''}`),
            // A heartbeat half a period late or more: killed, its record not lapsed yet.
            ...(p.heartbeat && p.heartbeat.agoMs >= p.heartbeat.everyMs * 1.5
              ? [el('div', { class: 'notice', 'data-notice': 'heartbeat-late' }, `⚠ no heartbeat for ${Math.round(p.heartbeat.agoMs / 1000)}s: it may have stopped`)]
              : []),
          ),
        )
      : [emptyState('Nothing running', 'No start or worker process has published itself on this Redis. Below: the settings this dashboard would start with.')];
    const durability = view.redisDurability && !view.redisDurability.durable
      ? [el('div', { class: 'notice', 'data-notice': 'redis-not-durable' }, `⚠ Redis is not durable (${view.redisDurability.problems.join('; ')}): a restart or a full memory loses queued jobs. Use appendonly yes and maxmemory-policy noeviction.`)]
      : [];
    target.replaceChildren(...durability, ...head, settingsList(view.settings), ...view.disagreements.map((d) => el('div', { class: 'notice' }, `⚠ ${d}`)));
  } catch (err) {
    showProblem(target, 'Could not read the running installation', err);
  }
}

// ---- top pages ---------------------------------------------------------------------------------

const windowKey = (w) => `${w.dateFrom}..${w.dateTo}`;

async function loadWindows() {
  const select = $('window');
  const pages = $('pages');
  try {
    const { windows } = await api('windows', { project: state.project });
    if (windows.length === 0) {
      select.replaceChildren(el('option', { value: '' }, 'no windows yet'));
      select.disabled = true;
      pages.replaceChildren(emptyState(`No complete windows for ${state.project}`, 'Top pages appear once a window has been exported completely.'));
      return;
    }
    if (!windows.some((w) => windowKey(w) === state.window)) state.window = windowKey(windows[0]);
    select.replaceChildren(
      ...windows.map((w) =>
        el('option', { value: windowKey(w) }, `${formatWindow(w.dateFrom, w.dateTo)}  ·  ${w.days === 1 ? '1 day' : `${w.days} days`}  ·  ${formatNumber(w.total)} uniques`),
      ),
    );
    select.disabled = false;
    select.value = state.window;
    await loadTopPages();
  } catch (err) {
    showProblem(pages, 'Could not read exported windows', err);
  }
}

async function loadTopPages() {
  const target = $('pages');
  const [from, to] = state.window.split('..');
  try {
    const data = await api('top-pages', { project: state.project, from, to, limit: 25 });
    if (data.pages.length === 0) {
      target.replaceChildren(emptyState('This window has no pages', 'The export completed with no visited pages for this window.'));
      return;
    }
    const siteTotal = data.totals?.total ?? 0;
    const rows = data.pages.map((p, i) => {
      const share = siteTotal > 0 ? Math.min(1, p.total / siteTotal) : 0;
      return el(
        'tr',
        {},
        el('td', { class: 'num muted' }, i + 1),
        el('td', { class: 'path' }, p.path),
        el('td', { class: 'num' }, formatNumber(p.total)),
        el('td', { class: 'num' }, formatNumber(p.human)),
        el('td', { class: 'num' }, formatNumber(p.ai)),
        el(
          'td',
          {},
          el('div', { class: 'share', title: 'Page uniques as a share of the site uniques of the window' },
            el('div', { class: 'share-bar' }, el('i', { style: { width: `${(share * 100).toFixed(1)}%` } })),
            el('span', { class: 'num small' }, `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`),
          ),
        ),
      );
    });
    const summary = data.totals
      ? el('p', { class: 'muted small' }, `${formatWindow(from, to)}: ${formatNumber(data.totals.total)} unique visitors on the site (${formatNumber(data.totals.human)} human, ${formatNumber(data.totals.ai)} AI). Top ${data.pages.length} pages by total uniques.`)
      : null;
    target.replaceChildren(
      ...[summary, table([{ label: '#', num: true }, { label: 'Path' }, { label: 'Total', num: true }, { label: 'Human', num: true }, { label: 'AI', num: true }, { label: 'Share of site' }], rows)].filter(Boolean),
    );
  } catch (err) {
    showProblem(target, 'Could not read top pages', err);
  }
}

// ---- export runs -------------------------------------------------------------------------------

async function loadRuns() {
  const target = $('runs');
  try {
    const { runs } = await api('export-runs', { limit: 30 });
    if (runs.length === 0) {
      target.replaceChildren(emptyState('No export runs yet', 'Runs appear here as soon as a window export starts: ', code('npx mintpipe export …'), ' or the nightly schedule.'));
      return;
    }
    const rows = runs.map((r) =>
      el(
        'tr',
        {},
        el('td', {}, el('span', { class: `badge ${r.status}` }, r.status), r.error ? el('div', { class: 'error-text', title: r.error }, r.error) : null),
        el('td', {}, el('div', {}, `${r.dataset} · ${r.projectId}`), el('div', { class: 'muted small' }, `${formatWindow(r.dateFrom, r.dateTo)} · ${r.kind}`)),
        el('td', { class: 'num' }, formatNumber(r.rows)),
        el('td', { class: 'num' }, formatNumber(r.pages)),
        el('td', { class: 'num' }, formatDuration(r.durationMs)),
        el('td', { class: 'num muted small' }, formatTime(r.startedAt)),
      ),
    );
    target.replaceChildren(table([{ label: 'Status' }, { label: 'Window' }, { label: 'Rows', num: true }, { label: 'Pages', num: true }, { label: 'Duration', num: true }, { label: 'Started', num: true }], rows));
  } catch (err) {
    showProblem(target, 'Could not read export runs', err);
  }
}

// ---- prompt batches ----------------------------------------------------------------------------

function batchCard(b) {
  const present = PROMPT_STATUSES.filter((s) => b.byStatus[s] > 0);
  const stack = el(
    'div',
    { class: 'stack', role: 'img', 'aria-label': present.map((s) => `${b.byStatus[s]} ${s}`).join(', ') },
    present.map((s) => el('i', { class: `s-${s}`, title: `${b.byStatus[s]} ${STATUS_LABELS[s] ?? s}`, style: { width: `${(100 * b.byStatus[s]) / b.prompts}%` } })),
  );
  const chips = el('div', { class: 'status-chips' }, present.map((s) => el('span', { class: 'chip' }, el('i', { class: `s-${s}` }), `${STATUS_LABELS[s] ?? s} `, el('b', {}, formatNumber(b.byStatus[s])))));
  const links = b.prLinks.length
    ? el(
        'details',
        { open: b.prLinks.length <= 5 ? '' : undefined },
        el('summary', {}, `${b.prLinks.length} pull request${b.prLinks.length === 1 ? '' : 's'}`),
        el('ul', { class: 'link-list' }, b.prLinks.map((l) => el('li', {}, safeLink(l.prLink), el('span', { class: 'muted' }, `${l.projectId} · job ${l.jobId} · prompt ${l.promptId}`)))),
      )
    : null;
  const problems = b.problems.length
    ? el(
        'details',
        {},
        el('summary', {}, `${b.problems.length} prompt${b.problems.length === 1 ? '' : 's'} to look at`),
        el(
          'ul',
          { class: 'link-list' },
          b.problems.map((p) => el('li', {}, el('span', { class: `badge ${p.status}` }, STATUS_LABELS[p.status] ?? p.status), el('span', { class: 'mono' }, p.promptId), p.error ? el('span', { class: 'error-text' }, p.error) : null)),
        ),
      )
    : null;
  return el(
    'div',
    { class: 'batch' },
    el('div', { class: 'batch-head' }, el('span', { class: 'batch-id' }, b.batchId), el('span', { class: 'muted small' }, `${formatNumber(b.prompts)} prompts · last activity ${formatTime(b.lastActivityAt)}`)),
    stack,
    chips,
    links,
    problems,
  );
}

/** A batch whose batch job gave up before starting it: why, and how to start it again. */
function notStartedCard(b) {
  return el(
    'div',
    { class: 'problem' },
    el('strong', {}, `Batch ${b.batchId} did not start (${formatNumber(b.prompts)} prompts, ${formatTime(b.at)})`),
    el('div', { class: 'small' }, b.reason, ' — start it again with ', code(`npx mintpipe prompts recover ${b.batchId}`)),
  );
}

async function loadBatches() {
  const target = $('batches');
  try {
    const { batches, notStarted = [] } = await api('prompt-batches', { limit: 10 });
    if (batches.length === 0 && notStarted.length === 0) {
      target.replaceChildren(emptyState('No prompt batches yet', 'Send follow-up prompts to agent jobs with ', code('npx mintpipe prompts send prompts.jsonl --wait'), '.'));
      return;
    }
    target.replaceChildren(...notStarted.map(notStartedCard), ...batches.map(batchCard));
  } catch (err) {
    showProblem(target, 'Could not read prompt batches', err);
  }
}

// ---- wiring ------------------------------------------------------------------------------------

async function loadProjectPanels() {
  writeHash();
  await Promise.all([loadDaily(), loadWindows(), loadSplits(), loadFreshness(), loadFixes(api, state.project, $('fixes'))]);
}

async function loadAll() {
  const tasks = [loadQueues(), loadRuns(), loadBatches(), loadInstallation()];
  try {
    const projects = await loadProjects();
    if (projects.length === 0) noProjects();
    else tasks.push(loadProjectPanels());
  } catch (err) {
    showProblem($('chart'), 'Could not read the warehouse', err);
    $('chart-legend').hidden = true;
    showProblem($('pages'), 'Could not read the warehouse', err);
  }
  await Promise.all(tasks);
  $('updated').textContent = `updated ${new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })}`;
  document.body.dataset.loaded = 'true';
}

function setDays(days) {
  state.days = days;
  for (const b of document.querySelectorAll('.segmented button')) b.classList.toggle('active', Number(b.dataset.days) === days);
}

$('project').addEventListener('change', (e) => {
  state.project = e.target.value;
  state.window = '';
  void loadProjectPanels();
});
for (const button of document.querySelectorAll('.segmented button')) {
  button.addEventListener('click', () => {
    setDays(Number(button.dataset.days));
    writeHash();
    void loadDaily();
    void loadSplits();
  });
}
$('window').addEventListener('change', (e) => {
  state.window = e.target.value;
  writeHash();
  void loadTopPages();
});
$('refresh').addEventListener('click', () => void loadAll());
let resizeTimer;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    drawChart();
    for (const split of SPLITS) drawSplit(split);
  }, 120);
});

setDays(state.days);
void loadAll();
setInterval(() => {
  if (document.visibilityState === 'visible') void loadAll();
}, REFRESH_MS);
