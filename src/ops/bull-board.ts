/**
 * Bull Board (jobs, retries, failures) for every mintpipe queue, mounted at /queues. Read-only
 * unless the user set MINTPIPE_DASHBOARD_TOKEN. It shows job data and failure reasons, never stack traces:
 * those carry local paths and say nothing an operator acts on.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { ControllerHandlerReturnType, JobStatus } from '@bull-board/api/typings/app';
import type { Job } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { redactSecrets } from '../logger.js';
import { ALL_QUEUES } from '../queue/queues.js';
import type { OpsSource } from './ops-source.js';

export const BULL_BOARD_PATH = '/queues';

export interface BullBoardOptions {
  /** Bull Board's `readOnlyMode` on every queue: no retry, promote, clean, pause or add. @default true */
  readOnly?: boolean;
}

function withoutStack<T extends Job | undefined>(job: T): T {
  // Only the copy read for display: nothing is written back to Redis.
  if (job) job.stacktrace = [];
  return job;
}

/** A queue as Bull Board reads it, minus the stack traces BullMQ keeps with failed attempts. */
class NoStackBullMQAdapter extends BullMQAdapter {
  override async getJob(id: string): Promise<Job | undefined> {
    return withoutStack(await super.getJob(id));
  }

  override async getJobs(jobStatuses: JobStatus[], start?: number, end?: number): Promise<Job[]> {
    return (await super.getJobs(jobStatuses, start, end)).map(withoutStack);
  }
}

/**
 * Bull Board's own error answer without the stack it adds under NODE_ENV=development (its
 * `details`): the status and translation key it would send, and the message's first line, redacted.
 */
export function boardErrorResponse(error: Error & { statusCode?: number }): ControllerHandlerReturnType {
  const message = redactSecrets(String(error.message ?? '').split('\n')[0] ?? '');
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
  return { status: status as ControllerHandlerReturnType['status'], body: { error: { key: 'ERRORS.INTERNAL_SERVER_ERROR' }, message } };
}

export async function registerBullBoard(app: FastifyInstance, source: OpsSource, options: BullBoardOptions = {}): Promise<void> {
  const readOnlyMode = options.readOnly ?? true;
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: ALL_QUEUES.map((name) => new NoStackBullMQAdapter(source.queue(name), { readOnlyMode })),
    serverAdapter,
    options: {
      uiConfig: {
        boardTitle: 'mintpipe queues',
        miscLinks: [{ text: 'mintpipe dashboard', url: '/' }],
        hideDocsLink: true,
      },
    },
  });
  // Set after createBullBoard, which installs its own handler (with a stack in development).
  serverAdapter.setErrorHandler(boardErrorResponse);
  // Bull Board's page links Google Fonts. The dashboard must work offline and should not tell a
  // third party who opens it: drop the link (the UI falls back to system fonts).
  app.addHook('onSend', async (request, _reply, payload) => {
    if (typeof payload === 'string' && request.url.startsWith(BULL_BOARD_PATH) && payload.includes('fonts.googleapis.com')) {
      return payload.replace(/<link[^>]*fonts\.googleapis\.com[^>]*>/g, '');
    }
    return payload;
  });
  await app.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
}
