/** Bull Board (jobs, retries, failures) for every mintpipe queue, mounted at /queues. */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance } from 'fastify';
import { ALL_QUEUES } from '../queue/queues.js';
import type { OpsSource } from './ops-source.js';

export const BULL_BOARD_PATH = '/queues';

export async function registerBullBoard(app: FastifyInstance, source: OpsSource): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: ALL_QUEUES.map((name) => new BullMQAdapter(source.queue(name))),
    serverAdapter,
    options: {
      uiConfig: {
        boardTitle: 'mintpipe queues',
        miscLinks: [{ text: 'mintpipe dashboard', url: '/' }],
        hideDocsLink: true,
      },
    },
  });
  await app.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
}
