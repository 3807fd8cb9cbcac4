/**
 * Bounds a probe of Redis or the warehouse. The shared Redis connection retries forever (BullMQ
 * needs `maxRetriesPerRequest: null`), so a health check or a scrape against a dead server would
 * otherwise never answer.
 */
export class ProbeTimeoutError extends Error {
  override name = 'ProbeTimeoutError';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what} did not answer within ${timeoutMs} ms`);
  }
}

/** Resolves or rejects like `promise`, or rejects with a ProbeTimeoutError after `timeoutMs`. */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeoutError(what, timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
