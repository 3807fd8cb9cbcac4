/** The queues mintpipe runs, by name (no BullMQ import: cheap for the CLI to load). */
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

/**
 * The BullMQ prefix of an installation's queues: its `MINTPIPE_QUEUE_PREFIX` in a hash tag
 * (`{mintpipe}`), so that on a Redis Cluster every key of a queue hashes to one slot, as BullMQ's
 * Lua scripts require. Keys are then `{mintpipe}:export:wait`, …; on a single server the braces
 * change nothing but the names (see docs/operations.md on upgrading).
 */
export function queueKeyPrefix(prefix: string): string {
  return `{${prefix}}`;
}
