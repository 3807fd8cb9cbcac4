/**
 * The eight analytics operations of Mintlify's published OpenAPI, by the dataset names mintpipe's
 * CLI uses, and the path of each under `/v1/analytics/:projectId/`. All share one organization budget.
 */
export const ANALYTICS_DATASETS = [
  'visitors',
  'views',
  'feedback',
  'feedback-by-page',
  'assistant',
  'assistant-caller-stats',
  'searches',
  'assistant-threads',
] as const;

export type AnalyticsDataset = (typeof ANALYTICS_DATASETS)[number];

/** Datasets whose item count per window `itemsFor` sets (visitors has `pathsFor`; the others derive). */
export const ITEM_DATASETS = ['views', 'feedback', 'feedback-by-page', 'assistant', 'searches'] as const;
export type ItemDataset = (typeof ITEM_DATASETS)[number];

/** Fastify route of each dataset (threads take the thread id in the path). */
export const ANALYTICS_ROUTE_PATHS: Record<AnalyticsDataset, string> = {
  visitors: '/v1/analytics/:projectId/visitors',
  views: '/v1/analytics/:projectId/views',
  feedback: '/v1/analytics/:projectId/feedback',
  'feedback-by-page': '/v1/analytics/:projectId/feedback/by-page',
  assistant: '/v1/analytics/:projectId/assistant',
  'assistant-caller-stats': '/v1/analytics/:projectId/assistant/caller-stats',
  searches: '/v1/analytics/:projectId/searches',
  'assistant-threads': '/v1/analytics/:projectId/assistant/threads/:threadId',
};
