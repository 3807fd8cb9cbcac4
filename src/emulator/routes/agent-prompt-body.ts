/** The `{ prompt }` body of the agent POSTs (message and create). */

/** The body arrives as text (see createEmulator) so that broken JSON is answered in the API's shape. */
export function parsePrompt(rawBody: string | undefined): string | { problem: string } {
  let body: unknown;
  try {
    body = rawBody === undefined || rawBody === '' ? undefined : JSON.parse(rawBody);
  } catch {
    return { problem: 'body must be a JSON object' };
  }
  const prompt = typeof body === 'object' && body !== null ? (body as { prompt?: unknown }).prompt : undefined;
  if (typeof prompt !== 'string' || prompt.length === 0) return { problem: 'prompt must be a non-empty string' };
  return prompt;
}
