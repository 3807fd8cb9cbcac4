/**
 * The per-project message budget counts what reached the upstream: a send whose connection was
 * never made gives its slot back (the prompt goes back to queued and is tried again), so a run of
 * refused connections does not spend the project's hourly budget; a send that went out keeps it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MintlifyClient } from '../../src/api/index.js';
import type { PromptContext } from '../../src/prompts/prompt-context.js';
import type { PromptRecord } from '../../src/prompts/prompt-record.js';
import { sendStep } from '../../src/prompts/send-prompt.js';
import { StepScope } from '../../src/prompts/step-scope.js';
import { freePort } from '../support/ports.js';
import { openPromptStack, promptContextOf, type PromptStack } from '../support/prompts-stack.js';
import { TEST_API_KEY } from '../support/test-env.js';

let stack: PromptStack;
let ctx: PromptContext;

beforeAll(async () => {
  // Paced (the stack's default is off, which has no slots to give back).
  stack = await openPromptStack({ workers: false, emulator: { agentTimeMs: 60_000 }, env: { MINTPIPE_MESSAGE_RATE: '50/1h' } });
  ctx = promptContextOf(stack);
});

afterAll(async () => {
  await stack?.close();
});

/** The head of a one-prompt lane to an idle agent job, as the look of the prompt ahead left it (no GET before the POST). */
async function head(projectId: string): Promise<PromptRecord> {
  const { batchId } = await stack.submit([{ projectId, jobId: 'job-1', prompt: `${projectId} prompt` }]);
  const [record] = (await stack.store.readMany(await stack.store.batchPromptIds(batchId))) as PromptRecord[];
  await stack.store.enterLanes([record!]);
  stack.emulator.control.setJob(projectId, 'job-1', { status: 'completed', archivedAt: null });
  return { ...record!, before: { status: 'completed', prLink: null }, checkedAtMs: ctx.now() } as PromptRecord;
}

async function sendWith(context: PromptContext, record: PromptRecord) {
  const scope = new StepScope(context, record);
  return scope.runAndWrite(() => sendStep(scope, record));
}

describe('the message budget', () => {
  it('gives back the slot of a send whose connection was never made, and keeps the slot of one that went out', async () => {
    const refused = await head('budget-unconnected');
    const unreachable = new MintlifyClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: TEST_API_KEY });
    await sendWith({ ...ctx, client: unreachable }, refused);
    expect(await stack.store.read(refused.promptId)).toMatchObject({ status: 'queued', sentAtMs: undefined });
    expect((await ctx.budget('budget-unconnected', 'message').usage()).used).toBe(0);

    const delivered = await head('budget-delivered');
    await sendWith(ctx, delivered);
    expect((await stack.store.read(delivered.promptId))!.status).toBe('polling');
    expect((await ctx.budget('budget-delivered', 'message').usage()).used).toBe(1);
  });
});
