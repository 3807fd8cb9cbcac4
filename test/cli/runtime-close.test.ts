/**
 * A runtime closes in order: what serves others first (onClose: a dashboard), then its workers,
 * which get their grace period, and what those jobs still use last (onClosed: `start`'s built-in
 * emulator, which jobs in their grace period keep fetching from).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openExportStack, type ExportStack } from '../support/export-stack.js';

let stack: ExportStack | undefined;
afterAll(async () => stack?.close());

describe('closing a runtime', () => {
  it('runs onClose hooks before the workers let go of their jobs and onClosed hooks after', async () => {
    stack = await openExportStack();
    const { runtime } = stack;
    const order: string[] = [];
    runtime.onClose(() => void order.push(`onClose, jobs released: ${runtime.jobsReleased}`));
    runtime.onClosed(() => void order.push(`onClosed, jobs released: ${runtime.jobsReleased}`));
    await runtime.close();
    expect(order).toEqual(['onClose, jobs released: false', 'onClosed, jobs released: true']);
  });
});
