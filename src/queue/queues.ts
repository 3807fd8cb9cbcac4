/** The queues mintpipe runs, by name, and how to open them. */
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';

export const QUEUE_NAMES = {
  /** Window exports, and the nightly planner that enqueues them. */
  export: 'export',
  /** Prompt sends and the polls of their agent jobs. */
  prompts: 'prompts',
} as const;

export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];
export const ALL_QUEUES: QueueName[] = [QUEUE_NAMES.export, QUEUE_NAMES.prompts];

export function parseQueueNames(text: string): QueueName[] {
  const names = text.split(',').map((n) => n.trim()).filter(Boolean);
  for (const name of names) {
    if (!(ALL_QUEUES as string[]).includes(name)) {
      throw new Error(`unknown queue "${name}"`);
    }
  }
  return names as QueueName[];
}

export function openQueue(name: QueueName, connection: Redis, prefix: string): Queue {
  return new Queue(name, { connection, prefix });
}

export function openQueueEvents(name: QueueName, connection: Redis, prefix: string): QueueEvents {
  return new QueueEvents(name, { connection, prefix });
}
