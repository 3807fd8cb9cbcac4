/**
 * Enqueuing needs only Redis, so work can wait there for workers: says so (on stderr) when none
 * serves the queue, and nothing when Redis will not tell. `--wait` is offered only to a shell that
 * could work the queue itself (it has an API key).
 */
import type { QueueName } from '../queue/queue-names.js';
import type { Runtime } from './runtime.js';

export async function hintWithoutWorkers(runtime: Runtime, queue: QueueName, what: string, orWait = true): Promise<void> {
  if ((await runtime.workersConnected(queue)) !== false) return;
  const wait = !orWait ? '' : runtime.config.api.key ? ', or pass --wait' : ', or set MINTLIFY_API_KEY in this shell and pass --wait';
  process.stderr.write(`no worker serves the ${queue} queue yet: ${what} once \`mintpipe start\` or \`mintpipe worker\` runs (with its MINTLIFY_API_KEY)${wait}\n`);
}
