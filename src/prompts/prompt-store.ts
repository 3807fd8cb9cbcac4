/**
 * Prompt records, batches and lanes in Redis: the one place that knows their layout. Every write
 * that decides something (a status change, entering or leaving a lane) is one Lua script, so two
 * workers racing on the same prompt cannot both win.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { isNoScript, type LuaScript } from './lua-script.js';
import type { PromptInput } from './prompt-input.js';
import type { PromptKind } from './plan-chains.js';
import { decodeRecord, F, pairsToHash, type PromptRecord, type RecordField } from './prompt-record.js';
import { RECORD_START_FAILURE } from './batch-scripts.js';
import { PromptKeys } from './prompt-keys.js';
import { assertMove, stateOf } from './prompt-transitions.js';
import { ADOPT, CREATE_PROMPT, LANE_ENTER, LANE_LEAVE, MARK_SYNCED, PATCH, RESEND, SET_HELD, TRANSITION } from './prompt-scripts.js';
import { PROMPT_STATUSES, type PromptStatus } from './prompt-status.js';

/** Redis retention of a finished batch. */
export const DEFAULT_PROMPT_RETENTION_MS = 30 * 86_400_000;
/** Prompts marked synced per script call. */
const MARK_SYNCED_CHUNK = 500;

/** A field change: a value to set, or null to remove the field. */
export type FieldChanges = Partial<Record<RecordField, string | number | boolean | null>>;

export interface TransitionRequest {
  /** Send generation the caller works for. */
  attempt: number;
  /** Statuses the prompt may be in for the change to apply (each move checked against the transition table). */
  from: readonly PromptStatus[];
  to: PromptStatus;
  /** The outcome becomes final. @default false */
  done?: boolean;
  /**
   * The send claim the caller's record carries: the change applies only while the prompt still
   * carries it. A run that outlived a Redis restart holds a claim the prompt made again from the
   * ledger does not have, so its late changes cannot land on the prompt's new life. @default none
   */
  claim?: string;
  set?: FieldChanges;
}

export type TransitionResult =
  | { ok: true; record: PromptRecord }
  | { ok: false; reason: 'missing' | 'other-attempt' | 'final' | 'wrong-status' | 'claim-lost' | 'not-in-table'; status?: PromptStatus };

export interface BatchMeta {
  batchId: string;
  total: number;
  createdAtMs: number;
  /** The file it came from, for display. */
  source: string;
  /** Submitted with `--force`: its prompts are sent even when the ledger shows the same rows sent before. @default false */
  forced?: boolean;
  /** Rebuilt from the ledger by `prompts recover` after Redis lost it. @default false */
  recovered?: boolean;
  /**
   * Why the last batch job gave up starting it (its attempts spent, or a failure no retry fixes);
   * cleared when a start is asked for again and when one succeeds. @default none
   */
  startFailure?: StartFailure;
}

/** A batch job that ended for good before its batch was started: why, and when. */
export interface StartFailure {
  /** One line. */
  reason: string;
  atMs: number;
}

/** Batch meta fields of a start failure. */
const START_FAILED = 'startFailed';
const START_FAILED_AT = 'startFailedAt';

export interface NewPrompt extends PromptInput {
  promptId: string;
  /** See PromptRecord. */
  identity: string;
  position: number;
  kind: PromptKind;
  /** See PromptRecord. */
  lane: string;
  chainHead?: string;
  next?: string;
  line?: number;
}

/** Observation fields a resend clears. */
const OBSERVATION_FIELDS: RecordField[] = [
  F.before, F.sentAt, F.finishedAt, F.polls, F.polledAt, F.pollDueAt, F.observedActive, F.lastStatus, F.prLink, F.lastArchivedAt, F.error, F.waitingSince, F.checks, F.checkedAt, F.failures, F.claim, F.sentBy,
];

/** The hash of a prompt just submitted, as field/value pairs. */
function newPromptFields(batchId: string, p: NewPrompt): string[] {
  const fields: Record<string, string> = {
    [F.batchId]: batchId,
    [F.identity]: p.identity,
    [F.position]: String(p.position),
    [F.projectId]: p.projectId,
    [F.jobId]: p.jobId ?? '',
    [F.prompt]: p.prompt,
    [F.kind]: p.kind,
    [F.lane]: p.lane,
    ...(p.line === undefined ? {} : { [F.line]: String(p.line) }),
    ...(p.chain === undefined ? {} : { [F.chain]: p.chain }),
    ...(p.chainHead === undefined ? {} : { [F.chainHead]: p.chainHead }),
    ...(p.next === undefined ? {} : { [F.next]: p.next }),
    ...(p.key === undefined ? {} : { [F.key]: p.key }),
    ...(p.sources?.length ? { [F.sources]: JSON.stringify(p.sources) } : {}),
    [F.status]: 'queued',
    [F.version]: '1',
    [F.attempt]: '0',
    [F.done]: '0',
    [F.laned]: '0',
    [F.synced]: '0',
  };
  return Object.entries(fields).flat();
}

function encode(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? '1' : '0';
  return String(value);
}

function changeArgs(changes: FieldChanges | undefined): string[] {
  return Object.entries(changes ?? {}).flatMap(([field, value]) => [field, encode(value)]);
}

const REFUSALS: Record<number, Exclude<TransitionResult, { ok: true }>['reason']> = { [-1]: 'missing', [-2]: 'other-attempt', [-3]: 'final', [-4]: 'claim-lost', [-5]: 'not-in-table' };

/** What `adopt` gives a queued prompt: its status and fields, its attempt, and a floor for its new version. */
export interface AdoptState {
  status: PromptStatus;
  done: boolean;
  minVersion: number;
  attempt: number;
  set: FieldChanges;
}

export class PromptStore {
  readonly keys: PromptKeys;

  constructor(
    readonly redis: Redis,
    prefix: string,
    /**
     * How long a finished batch's records stay in Redis (its outcomes stay in the warehouse for
     * good); until then, submitting the same prompts again is a no-op. @default 30 days
     */
    private readonly retentionMs: number = DEFAULT_PROMPT_RETENTION_MS,
  ) {
    this.keys = new PromptKeys(prefix);
  }

  /** Records a batch and its prompts (those not recorded yet); returns how many were new. */
  async createBatch(meta: BatchMeta, prompts: readonly NewPrompt[]): Promise<{ added: number; existing: number }> {
    const { batchId } = meta;
    await this.redis
      .multi()
      .hsetnx(this.keys.batch(batchId), 'createdAt', String(meta.createdAtMs))
      .hset(this.keys.batch(batchId), 'total', String(meta.total), 'source', meta.source, ...(meta.forced ? ['forced', '1'] : []), ...(meta.recovered ? ['recovered', '1'] : []))
      .zadd(this.keys.batches(), 'NX', meta.createdAtMs, batchId)
      .exec();
    let added = 0;
    const chunkSize = 500;
    for (let start = 0; start < prompts.length; start += chunkSize) {
      const results = await this.runScripted(CREATE_PROMPT, (pipeline) => {
        for (const p of prompts.slice(start, start + chunkSize)) {
          const keys = [this.keys.prompt(p.promptId), this.keys.batchPrompts(batchId), this.keys.batchCounts(batchId)];
          pipeline.evalsha(CREATE_PROMPT.sha, keys.length, ...keys, p.position, p.promptId, ...newPromptFields(batchId, p));
        }
      });
      added += results.filter((r) => Number(r) === 1).length;
    }
    return { added, existing: prompts.length - added };
  }

  async read(promptId: string): Promise<PromptRecord | undefined> {
    return decodeRecord(promptId, await this.redis.hgetall(this.keys.prompt(promptId)));
  }

  async readMany(promptIds: readonly string[]): Promise<Array<PromptRecord | undefined>> {
    const records: Array<PromptRecord | undefined> = [];
    const chunkSize = 500;
    for (let start = 0; start < promptIds.length; start += chunkSize) {
      const ids = promptIds.slice(start, start + chunkSize);
      const pipeline = this.redis.pipeline();
      for (const id of ids) pipeline.hgetall(this.keys.prompt(id));
      const results = (await pipeline.exec()) ?? [];
      results.forEach(([err, hash], i) => {
        if (err) throw err;
        records.push(decodeRecord(ids[i]!, hash as Record<string, string>));
      });
    }
    return records;
  }

  async transition(promptId: string, batchId: string, request: TransitionRequest): Promise<TransitionResult> {
    // Only an open record moves here (the script refuses a final one), so `from` is never final.
    for (const status of request.from) assertMove(promptId, stateOf(status, false), stateOf(request.to, request.done === true));
    const from = request.from.join(',');
    const reply = (await TRANSITION.run(
      this.redis,
      [this.keys.prompt(promptId), this.keys.batchCounts(batchId), this.keys.batch(batchId)],
      [request.attempt, from, request.to, request.done ? '1' : '0', request.claim ?? '', ...changeArgs(request.set)],
    )) as [number, string?, unknown?, number?];
    const code = Number(reply[0]);
    const status = reply[1] as PromptStatus | undefined;
    if (code === 1) {
      const record = decodeRecord(promptId, pairsToHash(reply[2]));
      if (!record) throw new Error(`prompt ${promptId}: unreadable record after a transition`);
      if (Number(reply[3]) === 1) await this.expireBatch(batchId);
      return { ok: true, record };
    }
    const reason = REFUSALS[code] ?? 'wrong-status';
    return { ok: false, reason, status };
  }

  /**
   * Gives a prompt that never moved in Redis the state the ledger knows (see ADOPT); undefined
   * when the record moved meanwhile. A final state counts as the batch's, and may expire it.
   */
  async adopt(
    record: Pick<PromptRecord, 'promptId' | 'batchId' | 'attempt'>,
    state: AdoptState,
  ): Promise<PromptRecord | undefined> {
    assertMove(record.promptId, 'queued', stateOf(state.status, state.done));
    const reply = (await ADOPT.run(
      this.redis,
      [this.keys.prompt(record.promptId), this.keys.batchCounts(record.batchId)],
      [record.attempt, state.status, state.done ? '1' : '0', state.minVersion, state.attempt, ...changeArgs(state.set)],
    )) as [number, unknown?];
    if (Number(reply[0]) !== 1) return undefined;
    if (state.done) await this.expireIfFinished(record.batchId);
    return decodeRecord(record.promptId, pairsToHash(reply[1]));
  }

  /** True while the prompt is `sending` under the claim `token` (Redis has not forgotten or re-made it). */
  async holdsClaim(promptId: string, token: string): Promise<boolean> {
    const [status, claim] = await this.redis.hmget(this.keys.prompt(promptId), F.status, F.claim);
    return status === 'sending' && claim === token;
  }

  /** Updates observation fields of a prompt still in `status`; false when it moved on. */
  async patch(record: Pick<PromptRecord, 'promptId' | 'attempt' | 'status'>, changes: FieldChanges): Promise<boolean> {
    const reply = await PATCH.run(this.redis, [this.keys.prompt(record.promptId)], [record.attempt, record.status, ...changeArgs(changes)]);
    return Number(reply) === 1;
  }

  /** One script call per 500 prompts (all keys share the hash tag): a group commit's marks in one round trip. */
  async markSyncedMany(versions: ReadonlyArray<{ promptId: string; version: number }>): Promise<void> {
    if (versions.length === 0) return;
    await this.runScripted(MARK_SYNCED, (pipeline) => {
      for (let start = 0; start < versions.length; start += MARK_SYNCED_CHUNK) {
        const chunk = versions.slice(start, start + MARK_SYNCED_CHUNK);
        pipeline.evalsha(MARK_SYNCED.sha, chunk.length, ...chunk.map((v) => this.keys.prompt(v.promptId)), ...chunk.map((v) => v.version));
      }
    });
  }

  /**
   * Puts prompts in their lanes, in the given order; returns each lane's head afterwards, and the
   * prompts that entered an empty lane (no other prompt of any batch ahead of them, so no run of
   * another prompt hands the lane on to them).
   */
  async enterLanes(records: ReadonlyArray<Pick<PromptRecord, 'promptId' | 'lane'>>): Promise<{ heads: string[]; firstInLane: Set<string> }> {
    const heads = new Set<string>();
    const firstInLane = new Set<string>();
    const chunkSize = 500;
    for (let start = 0; start < records.length; start += chunkSize) {
      const chunk = records.slice(start, start + chunkSize);
      const replies = await this.runScripted(LANE_ENTER, (pipeline) => {
        for (const r of chunk) {
          pipeline.evalsha(LANE_ENTER.sha, 2, this.keys.prompt(r.promptId), this.keys.lane(r.lane), r.promptId);
        }
      });
      replies.forEach((reply, i) => {
        const [code, head, first] = reply as [number, string?, number?];
        if (Number(code) !== 1) return;
        if (head) heads.add(head);
        if (Number(first) === 1) firstInLane.add(chunk[i]!.promptId);
      });
    }
    return { heads: [...heads], firstInLane };
  }

  /** Takes a final prompt out of its lane; returns the lane's new head, if any. */
  async leaveLane(record: Pick<PromptRecord, 'promptId' | 'lane'>): Promise<string | undefined> {
    const head = await LANE_LEAVE.run(this.redis, [this.keys.lane(record.lane)], [record.promptId]);
    return typeof head === 'string' && head !== '' ? head : undefined;
  }

  async laneHead(lane: string): Promise<string | undefined> {
    return (await this.redis.lindex(this.keys.lane(lane), 0)) ?? undefined;
  }

  /** Holds a queued prompt behind an ambiguous step of its chain (true), or releases it (false). */
  async setHeld(record: Pick<PromptRecord, 'promptId' | 'batchId'>, held: boolean): Promise<boolean> {
    const reply = await SET_HELD.run(this.redis, [this.keys.prompt(record.promptId), this.keys.batchCounts(record.batchId)], [held ? 1 : 0]);
    return Number(reply) === 1;
  }

  /** The prompts after `record` in its chain, in input order. */
  async chainAfter(record: Pick<PromptRecord, 'next'>): Promise<PromptRecord[]> {
    const rest: PromptRecord[] = [];
    for (let id = record.next; id !== undefined; ) {
      const next = await this.read(id);
      if (!next) break;
      rest.push(next);
      id = next.next;
    }
    return rest;
  }

  /** Makes a final ambiguous prompt a new attempt (status queued); undefined when it is not one. */
  async resend(promptId: string, batchId: string): Promise<PromptRecord | undefined> {
    const current = await this.read(promptId);
    if (!current) return undefined;
    const keys = [this.keys.prompt(promptId), this.keys.batchCounts(batchId), this.keys.lane(current.lane)];
    const reply = (await RESEND.run(this.redis, keys, [promptId, ...OBSERVATION_FIELDS])) as [number, unknown?];
    if (Number(reply[0]) !== 1) return undefined;
    // The batch is open again: its records must outlive the retention set when it finished.
    const batchKeys = [this.keys.batch(batchId), this.keys.batchPrompts(batchId), this.keys.batchCounts(batchId)];
    const ids = await this.batchPromptIds(batchId);
    const pipeline = this.redis.pipeline();
    for (const key of [...batchKeys, ...ids.map((id) => this.keys.prompt(id))]) pipeline.persist(key);
    await pipeline.exec();
    return decodeRecord(promptId, pairsToHash(reply[1]));
  }

  /**
   * Once every prompt of the batch is final, its Redis records expire after the retention
   * period (the warehouse keeps the outcomes), and batches past it leave the batch index.
   */
  private async expireIfFinished(batchId: string): Promise<void> {
    const [meta, counts] = await Promise.all([this.batchMeta(batchId), this.batchCounts(batchId)]);
    if (!meta || counts.done < meta.total) return;
    await this.expireBatch(batchId);
  }

  /** Sets the expiry of a finished batch's records (see expireIfFinished). */
  private async expireBatch(batchId: string): Promise<void> {
    const seconds = Math.max(1, Math.ceil(this.retentionMs / 1000));
    const ids = await this.batchPromptIds(batchId);
    const pipeline = this.redis.pipeline();
    for (const key of [this.keys.batch(batchId), this.keys.batchPrompts(batchId), this.keys.batchCounts(batchId)]) pipeline.expire(key, seconds);
    for (const id of ids) pipeline.expire(this.keys.prompt(id), seconds);
    pipeline.zremrangebyscore(this.keys.batches(), '-inf', Date.now() - this.retentionMs);
    await pipeline.exec();
  }

  async batchMeta(batchId: string): Promise<BatchMeta | undefined> {
    const hash = await this.redis.hgetall(this.keys.batch(batchId));
    if (hash.total === undefined) return undefined;
    const failed = hash[START_FAILED];
    return {
      batchId,
      total: Number(hash.total),
      createdAtMs: Number(hash.createdAt ?? 0),
      source: hash.source ?? '',
      forced: hash.forced === '1',
      recovered: hash.recovered === '1',
      ...(failed === undefined ? {} : { startFailure: { reason: failed, atMs: Number(hash[START_FAILED_AT] ?? 0) } }),
    };
  }

  /** Records why the batch job gave up starting the batch; false when Redis no longer has the batch. */
  async recordStartFailure(batchId: string, failure: StartFailure): Promise<boolean> {
    return Number(await RECORD_START_FAILURE.run(this.redis, [this.keys.batch(batchId)], [failure.reason, failure.atMs])) === 1;
  }

  /** Forgets a recorded start failure (the batch started, or a start was asked for again). */
  async clearStartFailure(batchId: string): Promise<void> {
    await this.redis.hdel(this.keys.batch(batchId), START_FAILED, START_FAILED_AT);
  }

  /** Prompts per status, how many are final, and how many are held behind an ambiguous step of their chain. */
  async batchCounts(batchId: string): Promise<{ byStatus: Record<PromptStatus, number>; done: number; held: number }> {
    const hash = await this.redis.hgetall(this.keys.batchCounts(batchId));
    const byStatus = Object.fromEntries(PROMPT_STATUSES.map((s) => [s, Math.max(0, Number(hash[s] ?? 0))])) as Record<PromptStatus, number>;
    return { byStatus, done: Number(hash._done ?? 0), held: Math.max(0, Number(hash._held ?? 0)) };
  }

  /** The batch's prompt ids in file order. */
  async batchPromptIds(batchId: string): Promise<string[]> {
    return this.redis.zrange(this.keys.batchPrompts(batchId), 0, -1);
  }

  /**
   * Bumps and returns the batch's start generation (each start of a batch job gets its own id).
   * A start asked for again replaces a recorded failure of the last one: followers wait for the
   * new job instead of reporting the old failure.
   */
  async nextBatchGeneration(batchId: string): Promise<number> {
    const key = this.keys.batch(batchId);
    const replies = (await this.redis.multi().hincrby(key, 'generation', 1).hdel(key, START_FAILED, START_FAILED_AT).exec()) ?? [];
    const [err, generation] = replies[0] ?? [new Error(`batch ${batchId}: no reply to the generation bump`)];
    if (err) throw err;
    return Number(generation);
  }

  /**
   * Runs a pipeline of one script's EVALSHA calls. A server that lacks the script (first use, or
   * after a restart) gets it loaded and the pipeline rebuilt and run again: every script here is
   * idempotent, so replaying the calls that did run is harmless.
   */
  private async runScripted(script: LuaScript, build: (pipeline: ChainableCommander) => void): Promise<unknown[]> {
    await script.load(this.redis);
    for (let round = 0; ; round++) {
      const pipeline = this.redis.pipeline();
      build(pipeline);
      const results = (await pipeline.exec()) ?? [];
      const missing = results.some(([err]) => isNoScript(err));
      if (missing && round === 0) {
        // The server lost its scripts since this connection loaded them (a restart): load again.
        await script.reload(this.redis);
        continue;
      }
      return results.map(([err, value]) => {
        if (err) throw err;
        return value;
      });
    }
  }
}
