/**
 * Per-day counts of a dataset split in two, for the dashboard's charts: assistant conversations
 * answered / unanswered, and feedback helpful / not helpful. Only 1-day windows count (a day's
 * numbers come from that day's own window, like the visitors chart); a day whose window completed
 * with no rows shows zeros, a day without a complete window shows null (a gap, not a zero).
 */
import { addDays } from '../export/dates.js';
import { tableName } from '../warehouse/index.js';
import type { WarehouseReader } from './warehouse-reader.js';

/** One day; `counts` is null when that day has no complete 1-day window of the dataset. */
export interface SplitPoint<K extends string> {
  /** `YYYY-MM-DD` */
  date: string;
  counts: Record<K, number> | null;
}

interface Split<K extends string> {
  /** The dataset whose complete 1-day windows mark the days that have data. */
  dataset: string;
  /** Its public view. */
  view: string;
  /** Each part's name and the boolean SQL condition on a row of the view that counts it. */
  parts: Record<K, string>;
}

/** Assistant conversations (one row per user turn) by `resolution_status`. */
export const ASSISTANT_SPLIT: Split<'answered' | 'unanswered'> = {
  dataset: 'assistant',
  view: 'assistant_conversations',
  parts: { answered: "resolution_status = 'answered'", unanswered: "resolution_status = 'unanswered'" },
};

/**
 * Feedback by `helpful` (contextual feedback); feedback without a rating (code snippets, agent,
 * thumbs only) is counted apart as `unrated`.
 */
export const FEEDBACK_SPLIT: Split<'helpful' | 'notHelpful' | 'unrated'> = {
  dataset: 'feedback',
  view: 'feedback',
  parts: { helpful: 'helpful = true', notHelpful: 'helpful = false', unrated: 'helpful IS NULL' },
};

/** Each day of [from, to) with its counts from the dataset's 1-day windows. */
export async function dailySplit<K extends string>(wh: WarehouseReader, split: Split<K>, projectId: string, from: string, to: string): Promise<SplitPoint<K>[]> {
  const keys = Object.keys(split.parts) as K[];
  const window = 'project_id = {projectId:String} AND date_to = date_from + 1 AND date_from >= {from:Date} AND date_from < {to:Date}';
  const params = { projectId, from, to, dataset: split.dataset };
  const [complete, counted] = await Promise.all([
    wh.select<{ date_from: string }>(
      `SELECT DISTINCT date_from FROM ${tableName(wh, 'latest_complete_runs')} WHERE dataset = {dataset:String} AND ${window}`,
      params,
    ),
    wh.select<Record<string, number | string> & { date_from: string }>(
      `SELECT date_from, ${keys.map((k, i) => `countIf(${split.parts[k]}) AS p${i}`).join(', ')}
       FROM ${tableName(wh, split.view)} WHERE ${window} GROUP BY date_from`,
      params,
    ),
  ]);
  const days = new Set(complete.map((r) => r.date_from));
  const byDay = new Map(counted.map((r) => [r.date_from, Object.fromEntries(keys.map((k, i) => [k, Number(r[`p${i}`])])) as Record<K, number>]));
  const zeros = Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
  const points: SplitPoint<K>[] = [];
  for (let day = from; day < to; day = addDays(day, 1)) {
    points.push({ date: day, counts: days.has(day) ? (byDay.get(day) ?? { ...zeros }) : null });
  }
  return points;
}
