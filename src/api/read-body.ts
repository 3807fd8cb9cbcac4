/**
 * Reads a response body as text, up to a cap: a body larger than any legitimate page (a runaway or
 * hostile upstream) is cut off as soon as it passes the cap instead of filling memory, and a
 * declared Content-Length over the cap is refused before reading at all.
 */
import type { ApiOperation } from './api-operation.js';
import { InvalidResponseError } from './errors/invalid-response-error.js';

/** Largest body read by default: far above a 1,000-row assistant page (several MB). 64 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

export async function readBodyText(op: ApiOperation, response: Response, maxBytes: number): Promise<string> {
  const tooLarge = (seen: string) =>
    new InvalidResponseError({ op, status: response.status, problem: `body is larger than ${maxBytes} bytes (${seen}; MINTPIPE_MAX_BODY)` });
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(`Content-Length ${declared}`);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(`${bytes} bytes read`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
