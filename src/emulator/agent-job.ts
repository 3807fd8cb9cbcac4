/**
 * Agent jobs as the API returns them, and the seeded jobs every emulated project starts with:
 * `job-1` … `job-N`, ~4% archived, the rest completed. Fields vary the way the API allows: some
 * jobs have no `model` or `source`, and a job that is not archived has `archivedAt: null` or no
 * `archivedAt` at all. Everything is derived from (seed, project, job), so tests can predict it.
 */
import { hash2, hashNumbers, hashString, unitFloat } from './seeded-random.js';

export type AgentJobStatus = 'active' | 'completed' | 'archived' | 'failed';

/** An agent job as the API serializes it. Optional fields may be absent from a response. */
export interface AgentJob {
  id: string;
  status: AgentJobStatus;
  source?: { repository: string; ref: string };
  model?: string;
  prLink: string | null;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601 when archived; otherwise null or absent. */
  archivedAt?: string | null;
}

/** Share of seeded jobs that start archived. */
export const SEEDED_ARCHIVED_SHARE = 0.04;
const MODELS = ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5'];
const DEFAULT_REPOSITORY = 'acme/docs';
const SEEDED_BEFORE_MS = Date.UTC(2026, 0, 1);
const HOUR_MS = 3_600_000;

/** The number of a seeded job id (`job-17` → 17), or undefined for any other id. */
export function seededJobNumber(jobId: string): number | undefined {
  const match = /^job-([1-9]\d{0,8})$/.exec(jobId);
  return match ? Number(match[1]) : undefined;
}

/** Whether seeded job `jobId` starts archived (false for ids that are not `job-<n>`). */
export function isSeededArchived(seed: number, projectId: string, jobId: string): boolean {
  const n = seededJobNumber(jobId);
  return n !== undefined && unitFloat(hash2(jobKey(seed, projectId, n), 1)) < SEEDED_ARCHIVED_SHARE;
}

/** The initial state of `job-<n>` of a project, or undefined when the id is not seeded there. */
export function seededJob(seed: number, projectId: string, jobId: string, jobsPerProject: number): AgentJob | undefined {
  const n = seededJobNumber(jobId);
  if (n === undefined || n > jobsPerProject) return undefined;
  const key = jobKey(seed, projectId, n);
  const draw = (salt: number) => unitFloat(hash2(key, salt));
  const archived = isSeededArchived(seed, projectId, jobId);
  const createdMs = SEEDED_BEFORE_MS - n * 3 * HOUR_MS - Math.floor(draw(2) * 2 * HOUR_MS);
  // Built in the API's field order, so responses read like the real ones.
  const job: AgentJob = { id: jobId, status: archived ? 'archived' : 'completed' } as AgentJob;
  if (draw(3) >= 0.05) job.source = { repository: DEFAULT_REPOSITORY, ref: draw(4) < 0.8 ? 'main' : `agent/update-${n}` };
  if (draw(5) >= 0.1) job.model = MODELS[Math.floor(draw(6) * MODELS.length)]!;
  job.prLink = draw(7) < 0.7 ? pullRequestLink(job, hash2(key, 8)) : null;
  job.createdAt = new Date(createdMs).toISOString();
  if (archived) job.archivedAt = new Date(createdMs + (1 + Math.floor(draw(9) * 30)) * 24 * HOUR_MS).toISOString();
  else if (draw(10) < 0.5) job.archivedAt = null;
  return job;
}

/** How run number `run` (1 = after the first message) of a job ends: mostly completed. */
export function runOutcome(
  seed: number,
  projectId: string,
  job: AgentJob,
  run: number,
): { status: 'completed' | 'failed'; prLink: string | null } {
  const key = hashNumbers(seed, hashString(projectId), hashString(job.id), run);
  const draw = unitFloat(hash2(key, 1));
  if (draw < 0.1) return { status: 'failed', prLink: null };
  // Some runs change nothing, so there is no pull request to link.
  if (draw < 0.28) return { status: 'completed', prLink: null };
  return { status: 'completed', prLink: pullRequestLink(job, hash2(key, 2)) };
}

/**
 * How long run number `run` of a job stays `active`: `meanMs`, spread uniformly by ±`jitter` of it
 * (0 = always `meanMs`), drawn from (seed, project, job, run) so a run's length is reproducible.
 */
export function runTimeMs(seed: number, projectId: string, jobId: string, run: number, meanMs: number, jitter: number): number {
  if (jitter === 0) return meanMs;
  const draw = unitFloat(hash2(hashNumbers(seed, hashString(projectId), hashString(jobId), run), 3));
  return Math.round(meanMs * (1 - jitter + 2 * jitter * draw));
}

function pullRequestLink(job: AgentJob, hash: number): string {
  return `https://github.com/${job.source?.repository ?? DEFAULT_REPOSITORY}/pull/${100 + (hash % 9900)}`;
}

function jobKey(seed: number, projectId: string, n: number): number {
  return hashNumbers(seed, hashString(projectId), n);
}
