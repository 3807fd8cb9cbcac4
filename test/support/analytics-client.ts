/**
 * A small client of the emulator's analytics endpoints for its own tests: one GET through
 * `app.inject` (no sockets), and whole-window fetches by offset or cursor as a careful client
 * pages (offset advanced by the rows received).
 */
import { ANALYTICS_DATASETS, EMULATOR_DATASETS, type AnalyticsDataset, type Emulator } from '../../src/emulator/index.js';

export const AUTH = { authorization: 'Bearer mint_test_key' };

/** The path of each dataset asked for by window (every one but lookups by id), from the emulator's registry. */
export const DATASET_PATHS = Object.fromEntries(
  ANALYTICS_DATASETS.flatMap((name) => (EMULATOR_DATASETS[name].kind === 'window' ? [[name, EMULATOR_DATASETS[name].path]] : [])),
) as Record<Exclude<AnalyticsDataset, 'assistant-threads'>, string>;

/** The field of a page that holds its rows. */
export const ROWS_FIELD = {
  visitors: 'visitors',
  views: 'views',
  feedback: 'feedback',
  'feedback-by-page': 'feedback',
  assistant: 'conversations',
  searches: 'searches',
} as const;

export interface Reply {
  status: number;
  body: Record<string, unknown>;
  raw: string;
}

export async function get(
  emulator: Emulator,
  dataset: Exclude<AnalyticsDataset, 'assistant-threads'>,
  projectId: string,
  query: Record<string, string | number | undefined>,
): Promise<Reply> {
  const search = new URLSearchParams(
    Object.entries(query).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]])),
  );
  return inject(emulator, `/v1/analytics/${projectId}/${DATASET_PATHS[dataset]}?${search}`);
}

export async function getThread(emulator: Emulator, projectId: string, threadId: string): Promise<Reply> {
  return inject(emulator, `/v1/analytics/${projectId}/assistant/threads/${threadId}`);
}

async function inject(emulator: Emulator, url: string): Promise<Reply> {
  const response = await emulator.app.inject({ method: 'GET', url, headers: AUTH });
  return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown>, raw: response.body };
}

/** Every page of a cursor dataset at `limit`, following nextCursor (and hasMore where the answer has it). */
export async function cursorPages(
  emulator: Emulator,
  dataset: 'feedback' | 'assistant' | 'searches',
  projectId: string,
  query: Record<string, string | number | undefined>,
): Promise<Reply[]> {
  const pages: Reply[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await get(emulator, dataset, projectId, { ...query, cursor });
    if (page.status !== 200) throw new Error(`${dataset} answered ${page.status}: ${page.raw}`);
    pages.push(page);
    const next = page.body.nextCursor as string | null;
    if (next === null) return pages;
    if (pages.length > 100_000) throw new Error('cursor paging does not end');
    cursor = next;
  }
}

/** Every page of an offset dataset, advancing by the rows each page held. */
export async function offsetPages(emulator: Emulator, dataset: 'visitors' | 'views', projectId: string, query: Record<string, string | number>): Promise<Reply[]> {
  const pages: Reply[] = [];
  for (let offset = 0; ; ) {
    const page = await get(emulator, dataset, projectId, { ...query, offset });
    if (page.status !== 200) throw new Error(`${dataset} answered ${page.status}: ${page.raw}`);
    pages.push(page);
    const rows = page.body[dataset] as unknown[];
    if (!page.body.hasMore) return pages;
    if (rows.length === 0) throw new Error('hasMore with an empty page');
    offset += rows.length;
  }
}

export function rowsOf(pages: Reply[], field: string): Record<string, unknown>[] {
  return pages.flatMap((page) => page.body[field] as Record<string, unknown>[]);
}
