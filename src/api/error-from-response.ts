import { z } from 'zod';
import { redactSecrets } from '../logger.js';
import type { ApiOperation } from './api-operation.js';
import {
  AuthError,
  InvalidRequestError,
  MintlifyApiError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
} from './errors/index.js';

const errorBodySchema = z.object({
  error: z.string(),
  details: z.array(z.object({ message: z.string() })).optional(),
});

const MAX_SNIPPET_CHARS = 200;

interface ServerWords {
  serverMessage?: string;
  details: string[];
}

/** The documented `{ error, details? }`, or else a short snippet of whatever came (a proxy's page). */
function readServerWords(bodyText: string): ServerWords {
  let data: unknown;
  try {
    data = JSON.parse(bodyText);
  } catch {
    data = undefined;
  }
  const parsed = errorBodySchema.safeParse(data);
  if (parsed.success) {
    return {
      serverMessage: redactSecrets(parsed.data.error),
      details: (parsed.data.details ?? []).map((detail) => redactSecrets(detail.message)),
    };
  }
  const snippet = bodyText.replace(/\s+/g, ' ').trim().slice(0, MAX_SNIPPET_CHARS);
  return { serverMessage: snippet ? redactSecrets(snippet) : undefined, details: [] };
}

export interface ErrorResponse {
  op: ApiOperation;
  status: number;
  /** The server's Retry-After, parsed and bounded (retry-after.ts); undefined when absent or unusable. */
  retryAfterMs: number | undefined;
  bodyText: string;
  /** Used for a 429 without a usable Retry-After. */
  defaultRetryAfterMs: number;
}

/** Maps a non-2xx answer to the error class that models the caller's decision. */
export function errorFromResponse(response: ErrorResponse): MintlifyApiError {
  const { op, status } = response;
  const words = readServerWords(response.bodyText);
  if (status === 400) {
    return new InvalidRequestError({ op, status, serverMessage: words.serverMessage ?? 'no error text', details: words.details });
  }
  if (status === 401 || status === 403) return new AuthError({ op, status, serverMessage: words.serverMessage });
  if (status === 404) return new NotFoundError({ op, serverMessage: words.serverMessage });
  if (status === 408) return new TimeoutError({ op, status });
  const { retryAfterMs } = response;
  if (status === 429) {
    return new RateLimitedError({
      op,
      retryAfterMs: retryAfterMs ?? response.defaultRetryAfterMs,
      retryAfterFromServer: retryAfterMs !== undefined,
      serverMessage: words.serverMessage,
    });
  }
  if (status >= 500) return new ServerError({ op, status, serverMessage: words.serverMessage, retryAfterMs });
  const detail = words.serverMessage ? `: ${words.serverMessage}` : '';
  return new MintlifyApiError(`${op}: unexpected HTTP ${status}${detail}`, { op, status });
}
