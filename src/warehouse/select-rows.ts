/** Typed SELECT with query parameters, rows as JSON objects. */
import type { Warehouse } from './warehouse.js';

/**
 * Runs a SELECT and returns its rows. 64-bit integers come back as numbers from the embedded engine
 * and as strings from a server: callers convert them with `Number()`.
 */
export async function selectRows<T>(wh: Warehouse, query: string, params?: Record<string, unknown>): Promise<T[]> {
  const result = await wh.client.query({ query, format: 'JSONEachRow', query_params: params });
  return result.json<T>();
}
