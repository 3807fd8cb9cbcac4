/**
 * One visitors page the way the export asks for it: `getAnalyticsPage` with the visitors
 * declaration's endpoint and schema (the client's behaviour is the same for every dataset).
 */
import type { CallOptions, MintlifyClient } from '../../src/api/index.js';
import { getDataset } from '../../src/datasets/index.js';
import { schemaOf } from '../../src/datasets/dataset-schema.js';

export interface VisitorsQuery {
  dateFrom: string;
  dateTo: string;
  limit: number;
  offset: number;
}

export interface VisitorsPage {
  totals: { human: number; ai: number; total: number };
  visitors: { path: string; human: number; ai: number; total: number }[];
  hasMore: boolean;
}

export async function getVisitorsPage(client: MintlifyClient, projectId: string, query: VisitorsQuery, call?: CallOptions): Promise<VisitorsPage> {
  const visitors = getDataset('visitors');
  const params = { dateFrom: query.dateFrom, dateTo: query.dateTo, limit: String(query.limit), offset: String(query.offset) };
  const { value } = await client.getAnalyticsPage(projectId, visitors.endpoint, params, schemaOf(visitors), call);
  return value as VisitorsPage;
}
