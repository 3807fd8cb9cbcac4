/**
 * The dashboard's "Fixes": per triaged subject of a project (a page, a question, a search term,
 * from `triage_items`), the reader input that triggered it, its agent job's status and pull
 * request, and the effect: the N days before the job finished against the N days after — for a
 * page its not-helpful share (contextual items with helpful false over those with helpful set) and
 * its commented feedback, for a search term its hits and click-through, for a question its
 * unanswered turns. "Too early" until N days have passed since the job finished.
 */
import { tableName } from '../warehouse/index.js';
import type { WarehouseReader } from './warehouse-reader.js';

export interface FixEffect {
  /** Not-helpful share (pages), click-through (terms); null when nothing to divide. */
  before: { share: number | null; count: number };
  after: { share: number | null; count: number };
}

export interface Fix {
  recipe: string;
  subject: string;
  batchId: string;
  promptId: string;
  jobId: string;
  status: string;
  prLink: string | null;
  finishedAt: string | null;
  items: number;
  /** Up to three of the reader texts that triggered it (feedback comments, questions). */
  examples: string[];
  /** Null while too early (or the job has not finished). */
  effect: FixEffect | null;
  tooEarly: boolean;
}

interface FixRow {
  recipe: string;
  subject: string;
  batch_id: string;
  prompt_id: string;
  job_id: string | null;
  status: string | null;
  pr_link: string | null;
  finished_ms: number | string;
  items: number | string;
  ids: string[];
}

const DAY_MS = 86_400_000;

export async function triageFixes(wh: WarehouseReader, options: { projectId: string; effectDays: number; nowMs?: number; limit?: number }): Promise<Fix[]> {
  const rows = await wh.select<FixRow>(
    `SELECT recipe, subject, batch_id, prompt_id, any(job_id) AS job_id, any(status) AS status, any(pr_link) AS pr_link,
            ifNull(toUnixTimestamp64Milli(any(finished_at)), 0) AS finished_ms, count() AS items, groupArray(10)(item_id) AS ids
     FROM ${tableName(wh, 'triage_items')} WHERE project_id = {projectId:String}
     GROUP BY recipe, subject, batch_id, prompt_id ORDER BY max(submitted_at) DESC, recipe, subject LIMIT {limit:UInt32}`,
    { projectId: options.projectId, limit: options.limit ?? 30 },
  );
  const now = options.nowMs ?? Date.now();
  const fixes: Fix[] = [];
  for (const r of rows) {
    const finished = Number(r.finished_ms) > 0 ? Number(r.finished_ms) : null;
    const tooEarly = finished === null || now - finished < options.effectDays * DAY_MS;
    const effect = tooEarly ? null : await effectOf(wh, options.projectId, r.recipe, r.subject, finished, options.effectDays);
    fixes.push({
      recipe: r.recipe,
      subject: r.subject,
      batchId: r.batch_id,
      promptId: r.prompt_id,
      jobId: r.job_id ?? '',
      status: r.status ?? 'queued',
      prLink: r.pr_link || null,
      finishedAt: finished === null ? null : new Date(finished).toISOString(),
      items: Number(r.items),
      examples: await examplesOf(wh, options.projectId, r.recipe, r.ids),
      effect,
      tooEarly,
    });
  }
  return fixes;
}

async function examplesOf(wh: WarehouseReader, projectId: string, recipe: string, ids: string[]): Promise<string[]> {
  if (recipe === 'search-gaps') return ids.slice(0, 3);
  const [table, column] = recipe === 'unanswered-questions' ? ['assistant_conversations', 'query'] : ['feedback', 'ifNull(comment, \'\')'];
  const rows = await wh.select<{ text: string }>(
    `SELECT any(${column}) AS text FROM ${tableName(wh, table)} WHERE project_id = {projectId:String} AND id IN {ids:Array(String)} GROUP BY id ORDER BY id LIMIT 3`,
    { projectId, ids },
  );
  return rows.map((r) => r.text);
}

async function effectOf(wh: WarehouseReader, projectId: string, recipe: string, subject: string, finishedMs: number, days: number): Promise<FixEffect> {
  const params = { projectId, subject, from: new Date(finishedMs - days * DAY_MS).toISOString().slice(0, 10), at: new Date(finishedMs).toISOString().slice(0, 10), to: new Date(finishedMs + days * DAY_MS).toISOString().slice(0, 10) };
  const side = (before: boolean) => (before ? 'd >= toDate({from:String}) AND d < toDate({at:String})' : 'd >= toDate({at:String}) AND d < toDate({to:String})');
  if (recipe === 'search-gaps') {
    const [r] = await wh.select<Record<string, number | string>>(
      `SELECT sumIf(hits, ${side(true)}) AS bh, sumIf(hits * ctr, ${side(true)}) AS bc, sumIf(hits, ${side(false)}) AS ah, sumIf(hits * ctr, ${side(false)}) AS ac
       FROM (SELECT date_from AS d, hits, ctr FROM ${tableName(wh, 'searches')}
             WHERE project_id = {projectId:String} AND lowerUTF8(trimBoth(replaceRegexpAll(search_query, '\\\\s+', ' '))) = {subject:String})`,
      params,
    );
    const share = (hits: number, clicks: number) => (hits > 0 ? clicks / hits : null);
    return { before: { share: share(Number(r?.bh), Number(r?.bc)), count: Number(r?.bh ?? 0) }, after: { share: share(Number(r?.ah), Number(r?.ac)), count: Number(r?.ah ?? 0) } };
  }
  if (recipe === 'unanswered-questions') {
    // One copy of each turn across overlapping windows; a turn is its id with its timestamp, as the
    // turns of one conversation may share the id.
    const [r] = await wh.select<Record<string, number | string>>(
      `SELECT countIf(${side(true)}) AS b, countIf(${side(false)}) AS a FROM (
         SELECT toDate(ifNull(timestamp, toDateTime64(date_from, 3, 'UTC'))) AS d FROM ${tableName(wh, 'assistant_conversations')}
         WHERE project_id = {projectId:String} AND (response_type = 'clarifying_question' OR length(sources) = 0)
           AND lowerUTF8(trimBoth(replaceRegexpAll(query, '\\\\s+', ' '))) = {subject:String} LIMIT 1 BY id, timestamp)`,
      params,
    );
    return { before: { share: null, count: Number(r?.b ?? 0) }, after: { share: null, count: Number(r?.a ?? 0) } };
  }
  const [r] = await wh.select<Record<string, number | string>>(
    `SELECT countIf(${side(true)} AND source = 'contextual' AND helpful = false) AS bn, countIf(${side(true)} AND source = 'contextual' AND helpful IS NOT NULL) AS bs,
            countIf(${side(true)} AND trimBoth(ifNull(comment, '')) != '') AS bc,
            countIf(${side(false)} AND source = 'contextual' AND helpful = false) AS an, countIf(${side(false)} AND source = 'contextual' AND helpful IS NOT NULL) AS as_,
            countIf(${side(false)} AND trimBoth(ifNull(comment, '')) != '') AS ac
     FROM (SELECT toDate(ifNull(created_at, toDateTime64(date_from, 3, 'UTC'))) AS d, source, helpful, comment FROM ${tableName(wh, 'feedback')}
           WHERE project_id = {projectId:String} AND path = {subject:String} LIMIT 1 BY id)`,
    params,
  );
  const share = (n: number, of: number) => (of > 0 ? n / of : null);
  return {
    before: { share: share(Number(r?.bn), Number(r?.bs)), count: Number(r?.bc ?? 0) },
    after: { share: share(Number(r?.an), Number(r?.as_)), count: Number(r?.ac ?? 0) },
  };
}
