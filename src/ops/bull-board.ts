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
