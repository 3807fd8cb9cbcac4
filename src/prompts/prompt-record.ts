/**
 * A prompt's record in Redis: its text, its public status, and what the pipeline observed. Redis
 * is the source of truth the processor works from; the warehouse gets an event per change.
 */
import type { AgentJobStatus } from '../api/index.js';
import { AGENT_JOB_STATUSES } from '../api/index.js';
import type { PromptKind } from './plan-chains.js';
import { jobLaneId } from './prompt-keys.js';
import { isPromptStatus, type PromptStatus } from './prompt-status.js';

/** The agent job as seen right before the send: a terminal status equal to it proves nothing. */
export interface JobSnapshot {
  status: AgentJobStatus;
  prLink: string | null;
  /** What the job's `archivedAt` held (the spec does not say what it holds before archiving). @default null */
  archivedAt?: string | null;
}

/** `archivedAt` as compared: a string, or null for anything else (absent, null, another type). */
export function archivedAtOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export interface PromptRecord {
  promptId: string;
  batchId: string;
  /** The ledger's key of the prompt: its row, not its file (prompt-identity.ts); '' for records older than the ledger. */
  identity: string;
  /** 0-based position in the batch's file. */
  position: number;
  /** 1-based line of the file, when it came from one. */
  line: number | undefined;
  projectId: string;
  /** The agent job: given, or learned (a create's new job; a chain's job for its follow-ups); '' until known. */
  jobId: string;
  prompt: string;
  /** `create` starts a new agent job; `message` sends to an existing one. */
  kind: PromptKind;
  /** The chain key of the file, if any. */
  chain: string | undefined;
  /** The first prompt of this prompt's chain (itself for the first); undefined without a chain. */
  chainHead: string | undefined;
  /** The next prompt of the chain, in input order. */
  next: string | undefined;
  /** The lane it is sent in: its agent job's, or its chain's while the job is yet to be created. */
  lane: string;
  /** Waiting behind an ambiguous step of its chain: sent only after that step is resent (or never, when cancelled). */
  held: boolean;
  status: PromptStatus;
  /** Increases with every status change; the warehouse keeps the highest. */
  version: number;
  /** Send generation: 0, then +1 per explicit resend. Jobs of older generations do nothing. */
  attempt: number;
  /** The outcome is final (an `ambiguous` prompt is final only once its observation ended). */
  done: boolean;
  /** Entered its agent job's lane (the order of sends to that job). */
  laned: boolean;
  /** Highest version written to the warehouse. */
  syncedVersion: number;
  /** The agent job right before the send. */
  before: JobSnapshot | undefined;
  /** Epoch ms of the send (the POST going out). */
  sentAtMs: number | undefined;
  finishedAtMs: number | undefined;
  /** GETs of the agent job after the send. */
  polls: number;
  /** Epoch ms of the last poll that found the job still running (the pace learns run times from it). */
  polledAtMs: number | undefined;
  /** Epoch ms the next poll is planned for (a queue may run it later). */
  pollDueAtMs: number | undefined;
  /** The agent job was seen `active` after the send (the POST's answer counts). */
  observedActive: boolean;
  /** Last status seen after the send. */
  lastStatus: AgentJobStatus | undefined;
  prLink: string | null;
  /** The job's `archivedAt` as last polled after the send (null: none seen, or not a string). */
  lastArchivedAt: string | null;
  error: string | undefined;
  /** Epoch ms when the job was first found busy (active) before sending. */
  waitingSinceMs: number | undefined;
  /** GETs before the send (their count drives the backoff of waiting). */
  checks: number;
  /** Epoch ms when `before` was seen by the prompt ahead in the lane (a fresh look spares a GET). */
  checkedAtMs: number | undefined;
  /** Consecutive failed attempts to check or send that proved nothing was sent. */
  failures: number;
  /** The token of the run that claimed the send (checked again right before the POST). */
  claim: string | undefined;
  /** The earlier batch whose send of this same row the ledger showed: this prompt was not sent again. */
  sentBy: string | undefined;
  /** The row's key (a query row's own identity, prompt-input.ts); undefined for file rows. */
  key: string | undefined;
  /** Ids of the reader input behind it (triage rows); [] for others. */
  sources: string[];
}

/** Hash field names of the record (what the Lua scripts read and write). */
export const F = {
  batchId: 'batchId',
  identity: 'identity',
  position: 'position',
  line: 'line',
  projectId: 'projectId',
  jobId: 'jobId',
  prompt: 'prompt',
  kind: 'kind',
  chain: 'chain',
  chainHead: 'chainHead',
  next: 'next',
  lane: 'lane',
  held: 'held',
  status: 'status',
  version: 'version',
  attempt: 'attempt',
  done: 'done',
  laned: 'laned',
  synced: 'synced',
  before: 'before',
  sentAt: 'sentAt',
  finishedAt: 'finishedAt',
  polls: 'polls',
  polledAt: 'polledAt',
  pollDueAt: 'pollDueAt',
  observedActive: 'observedActive',
  lastStatus: 'lastStatus',
  prLink: 'prLink',
  lastArchivedAt: 'lastArchivedAt',
  error: 'error',
  waitingSince: 'waitingSince',
  checks: 'checks',
  checkedAt: 'checkedAt',
  failures: 'failures',
  claim: 'claim',
  sentBy: 'sentBy',
  key: 'key',
  sources: 'sources',
} as const;

export type RecordField = (typeof F)[keyof typeof F];

function int(value: string | undefined, fallback = 0): number {
  const n = value === undefined ? NaN : Number(value);
  return Number.isFinite(n) ? n : fallback;
}

function optionalInt(value: string | undefined): number | undefined {
  return value === undefined || value === '' ? undefined : int(value);
}

function agentStatus(value: string | undefined): AgentJobStatus | undefined {
  return value !== undefined && (AGENT_JOB_STATUSES as readonly string[]).includes(value) ? (value as AgentJobStatus) : undefined;
}

function snapshot(value: string | undefined): JobSnapshot | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as { status?: string; prLink?: unknown; archivedAt?: unknown };
    const status = agentStatus(parsed.status);
    return status ? { status, prLink: typeof parsed.prLink === 'string' ? parsed.prLink : null, archivedAt: archivedAtOf(parsed.archivedAt) } : undefined;
  } catch {
    return undefined;
  }
}

/** A JSON list of strings ([] when absent or not one). */
function stringList(value: string | undefined): string[] {
  if (!value) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** Decodes a hash (HGETALL) into a record; undefined when the prompt does not exist. */
export function decodeRecord(promptId: string, hash: Record<string, string>): PromptRecord | undefined {
  const status = hash[F.status];
  if (status === undefined || !isPromptStatus(status)) return undefined;
  const projectId = hash[F.projectId] ?? '';
  const jobId = hash[F.jobId] ?? '';
  return {
    promptId,
    batchId: hash[F.batchId] ?? '',
    identity: hash[F.identity] ?? '',
    position: int(hash[F.position]),
    line: optionalInt(hash[F.line]),
    projectId,
    jobId,
    prompt: hash[F.prompt] ?? '',
    kind: hash[F.kind] === 'create' ? 'create' : 'message',
    chain: hash[F.chain] || undefined,
    chainHead: hash[F.chainHead] || undefined,
    next: hash[F.next] || undefined,
    // Records written before chains existed have no lane field: theirs is their job's.
    lane: hash[F.lane] || jobLaneId(projectId, jobId),
    held: hash[F.held] === '1',
    status,
    version: int(hash[F.version]),
    attempt: int(hash[F.attempt]),
    done: hash[F.done] === '1',
    laned: hash[F.laned] === '1',
    syncedVersion: int(hash[F.synced]),
    before: snapshot(hash[F.before]),
    sentAtMs: optionalInt(hash[F.sentAt]),
    finishedAtMs: optionalInt(hash[F.finishedAt]),
    polls: int(hash[F.polls]),
    polledAtMs: optionalInt(hash[F.polledAt]),
    pollDueAtMs: optionalInt(hash[F.pollDueAt]),
    observedActive: hash[F.observedActive] === '1',
    lastStatus: agentStatus(hash[F.lastStatus]),
    prLink: hash[F.prLink] || null,
    lastArchivedAt: hash[F.lastArchivedAt] || null,
    error: hash[F.error] || undefined,
    waitingSinceMs: optionalInt(hash[F.waitingSince]),
    checks: int(hash[F.checks]),
    checkedAtMs: optionalInt(hash[F.checkedAt]),
    failures: int(hash[F.failures]),
    claim: hash[F.claim] || undefined,
    sentBy: hash[F.sentBy] || undefined,
    key: hash[F.key] || undefined,
    sources: stringList(hash[F.sources]),
  };
}

/** Flat HGETALL reply (as Lua returns it) to an object. */
export function pairsToHash(flat: unknown): Record<string, string> {
  const hash: Record<string, string> = {};
  if (!Array.isArray(flat)) return hash;
  for (let i = 0; i + 1 < flat.length; i += 2) hash[String(flat[i])] = String(flat[i + 1]);
  return hash;
}
