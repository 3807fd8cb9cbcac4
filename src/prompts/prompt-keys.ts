/**
 * Redis keys of the prompt pipeline, all under the queue prefix so installations sharing one
 * Redis stay apart. Ids are URI-encoded where they come from users (project and job ids).
 *
 * Every key carries one hash tag, `{<prefix>:prompts}`: on a Redis Cluster all of them live in one
 * slot, so each Lua script of the pipeline (which touches a prompt, its batch and its lane at once)
 * runs on one node.
 */
export class PromptKeys {
  private readonly prefix: string;

  constructor(queuePrefix: string) {
    this.prefix = `{${queuePrefix}:prompts}`;
  }

  /** Hash: one prompt's record (text, state, observation). */
  prompt(promptId: string): string {
    return `${this.prefix}:p:${promptId}`;
  }

  /** Hash: a batch's meta (total, createdAt, source file, start generation, why its last start failed). */
  batch(batchId: string): string {
    return `${this.prefix}:b:${batchId}`;
  }

  /** Sorted set: the batch's prompt ids scored by position in the file. */
  batchPrompts(batchId: string): string {
    return `${this.prefix}:b:${batchId}:ids`;
  }

  /** Hash: prompts of the batch per status, and `_done` for those whose outcome is final. */
  batchCounts(batchId: string): string {
    return `${this.prefix}:b:${batchId}:counts`;
  }

  /** Sorted set of batch ids by creation time. */
  batches(): string {
    return `${this.prefix}:batches`;
  }

  /**
   * List: the prompts of one lane (see jobLaneId, chainLaneId), in the order they must be sent;
   * the head is the one allowed to run.
   */
  lane(laneId: string): string {
    return `${this.prefix}:lane:${laneId}`;
  }
}

/**
 * The lane of an agent job: every prompt to it, shared by all batches so ordering holds across
 * them. (The key it always had.)
 */
export function jobLaneId(projectId: string, jobId: string): string {
  return `${encodeURIComponent(projectId)}/${encodeURIComponent(jobId)}`;
}

/**
 * The lane of a chain that creates its agent job: no one else can send to a job before it exists,
 * so the chain's own order is all there is. Never contains a `/`, so never a job lane's id.
 */
export function chainLaneId(batchId: string, chainKey: string): string {
  return `chain:${batchId}:${encodeURIComponent(chainKey)}`;
}
