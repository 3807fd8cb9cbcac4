/**
 * Writes prompt state changes to `prompt_events` in shared inserts (group commit: while one insert
 * runs, the next changes gather), then marks them synced in Redis. A mark that fails only means a
 * later run writes the same state again: the ledger keeps each prompt's highest version.
 */
import type { Logger } from '../logger.js';
import { insertPromptEvents, type PromptEvent, type Warehouse } from '../warehouse/index.js';
import type { PromptRecord } from './prompt-record.js';
import type { PromptStore } from './prompt-store.js';

/** The warehouse row of a record's current state. */
export function toPromptEvent(record: PromptRecord): PromptEvent {
  return {
    batchId: record.batchId,
    promptId: record.promptId,
    identity: record.identity,
    projectId: record.projectId,
    jobId: record.jobId,
    status: record.status,
    prLink: record.prLink,
    sentAt: record.sentAtMs === undefined ? null : new Date(record.sentAtMs),
    finishedAt: record.finishedAtMs === undefined ? null : new Date(record.finishedAtMs),
    polls: record.polls,
    error: record.error ?? null,
    version: record.version,
    kind: record.kind,
    chain: record.chain ?? null,
    position: record.position,
    line: record.line ?? null,
    attempt: record.attempt,
    sentBy: record.sentBy ?? null,
    seenBefore: record.status === 'sending' && record.before ? JSON.stringify(record.before) : '',
    key: record.key ?? '',
    sources: record.status === 'queued' ? record.sources : [],
    // The text and its sources go once per send attempt, not with every change.
    prompt: record.status === 'queued' ? record.prompt : '',
  };
}

interface Pending {
  records: readonly PromptRecord[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class OutcomeWriter {
  private queue: Pending[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly warehouse: Warehouse,
    private readonly store: PromptStore,
    private readonly logger: Logger,
    /** Most rows in one insert. @default 10000 */
    private readonly maxRows = 10_000,
  ) {}

  /** Stores the records' current states; resolves when they are in the warehouse. */
  write(records: readonly PromptRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ records, resolve, reject });
      this.flushing ??= this.drain();
    });
  }

  /** Resolves once nothing is being written: the workers' close awaits it before the warehouse closes. */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const group: Pending[] = [];
        let rows = 0;
        while (this.queue.length > 0 && (group.length === 0 || rows + this.queue[0]!.records.length <= this.maxRows)) {
          const next = this.queue.shift()!;
          group.push(next);
          rows += next.records.length;
        }
        const records = group.flatMap((p) => p.records);
        try {
          await insertPromptEvents(this.warehouse, records.map(toPromptEvent));
        } catch (err) {
          this.logger.warn({ event: 'prompt_events_write_failed', rows, err }, 'prompt events not written');
          for (const p of group) p.reject(err);
          continue;
        }
        // Stored: callers go on; the marks only spare a later run writing the same states again.
        for (const p of group) p.resolve();
        // A prompt changed twice in the group is marked twice: the mark keeps the higher version.
        await this.store.markSyncedMany(records.map(({ promptId, version }) => ({ promptId, version }))).catch((err: unknown) => {
          this.logger.warn({ event: 'prompt_synced_marks_failed', rows, err }, 'stored events not marked synced; a later run writes them again');
        });
      }
    } finally {
      this.flushing = undefined;
    }
  }
}
