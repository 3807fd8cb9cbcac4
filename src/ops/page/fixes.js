// The "Fixes" panel: per triaged page, question or search term, what readers said, the agent
// job's status and pull request, and the effect in the days before and after the job finished.
import { el, emptyState, problemState, safeLink, table } from './format.js';

const percent = (share) => (share === null ? '–' : `${(100 * share).toFixed(0)}%`);

function effectText(fix, days) {
  if (fix.tooEarly) return el('span', { class: 'muted' }, fix.finishedAt ? `too early (${days} days after the job)` : 'too early (job not finished)');
  const { before, after } = fix.effect;
  if (fix.recipe === 'search-gaps') return `hits ${before.count} → ${after.count}, click-through ${percent(before.share)} → ${percent(after.share)}`;
  if (fix.recipe === 'unanswered-questions') return `unanswered ${before.count} → ${after.count}`;
  return `not helpful ${percent(before.share)} → ${percent(after.share)}, comments ${before.count} → ${after.count}`;
}

function fixRow(fix, days) {
  const examples = fix.examples.length ? el('ul', { class: 'link-list small' }, fix.examples.map((text) => el('li', {}, text.length > 160 ? `${text.slice(0, 159)}…` : text))) : null;
  return el(
    'tr',
    {},
    el('td', {}, el('div', { class: 'mono' }, fix.subject), el('div', { class: 'muted small' }, fix.recipe)),
    el('td', { class: 'num' }, String(fix.items), examples),
    el('td', {}, el('span', { class: `badge ${fix.status}` }, fix.status), fix.jobId ? el('div', { class: 'muted small mono' }, `job ${fix.jobId}`) : null),
    el('td', {}, fix.prLink ? safeLink(fix.prLink) : el('span', { class: 'muted' }, '–')),
    el('td', {}, effectText(fix, days)),
  );
}

export async function loadFixes(api, project, target) {
  if (!project) return;
  try {
    const { fixes, effectDays } = await api('fixes', { project });
    if (fixes.length === 0) {
      target.replaceChildren(emptyState('Nothing triaged yet', 'Turn reader complaints into agent jobs with ', el('code', {}, 'npx mintpipe triage run feedback-hotspots --allow-create'), '.'));
      return;
    }
    const headers = [{ label: 'Page or term' }, { label: 'Complaints', num: true }, { label: 'Job' }, { label: 'Pull request' }, { label: `Effect (${effectDays} days before → after)` }];
    target.replaceChildren(table(headers, fixes.map((f) => fixRow(f, effectDays))));
  } catch (err) {
    target.replaceChildren(problemState('Could not read the fixes', err instanceof Error ? err.message : String(err)));
  }
}
