/**
 * The live state of every agent job the emulator has touched. Seeded jobs materialize on first
 * use; `createJob` adds new ones (`agent-1`, `agent-2`, …). A create or a message starts a run:
 * the job is `active` for the run's time (`agentTimeMs`, spread by `agentTimeJitter`), then
 * `completed` or `failed` (see `runOutcome`). With a pickup delay a message is processed
 * asynchronously, as the spec allows: for that long the job (and the POST's own answer) still
 * show its previous state, then the run starts. Transitions are evaluated lazily on each read, so
 * thousands of running jobs hold no timers and a closed emulator leaves none behind.
 */
import { runOutcome, runTimeMs, seededJob, type AgentJob, type AgentJobStatus } from './agent-job.js';

/** Fields to change on a job; a field set to `undefined` is removed from the job. */
export type AgentJobPatch = { [K in Exclude<keyof AgentJob, 'id'>]?: AgentJob[K] | undefined };

interface JobState {
  job: AgentJob;
  /** Runs started so far; picks the deterministic outcome of the next one. */
  runs: number;
  /** When the current run ends; null when no run is in progress. */
  settlesAtMs: number | null;
  /** When a message taken but not yet picked up starts its run (`settlesAtMs` is then its end); null when none waits. */
  startsAtMs: number | null;
}

export class AgentJobStore {
  private readonly states = new Map<string, JobState>();
  private created = 0;

  constructor(
    private readonly seed: number,
    private readonly jobsPerProject: number,
    private readonly agentTimeMs: number,
    private readonly now: () => number,
    /** Spread of run times around agentTimeMs (0–1). @default 0 */
    private readonly agentTimeJitter = 0,
    /** How long after a message its run starts (the job shows its previous state until then). @default 0 */
    private readonly pickupDelayMs = 0,
  ) {}

  /** The job as the API would return it now, or undefined when it does not exist. */
  find(projectId: string, jobId: string): AgentJob | undefined {
    const state = this.state(projectId, jobId);
    return state && snapshot(state.job);
  }

  /** Starts a run on an existing job (the message was accepted); returns the status it had before. */
  startRun(projectId: string, jobId: string): { statusBefore: AgentJobStatus; job: AgentJob; runMs: number } {
    const state = this.state(projectId, jobId);
    if (!state) throw new Error(`unknown agent job ${projectId}/${jobId}`);
    // A message still waiting for pickup is as good as a run in progress.
    const statusBefore = state.startsAtMs === null ? state.job.status : 'active';
    const runMs = this.activate(projectId, state, true, this.pickupDelayMs);
    return { statusBefore, job: snapshot(state.job), runMs };
  }

  /** Creates a job of the project and starts its first run (the create was accepted). */
  createJob(projectId: string): { job: AgentJob; runMs: number } {
    this.created++;
    const state = this.create(projectId, `agent-${this.created}`);
    state.job.source = { repository: 'acme/docs', ref: 'main' };
    state.job.model = 'claude-sonnet-4-5';
    state.job.archivedAt = null;
    const runMs = this.activate(projectId, state);
    return { job: snapshot(state.job), runMs };
  }

  /**
   * Changes a job, creating it when it does not exist. Setting `status: 'active'` starts a run
   * that settles after `agentTimeMs`; any other status cancels a run in progress.
   */
  patch(projectId: string, jobId: string, patch: AgentJobPatch): AgentJob {
    const state = this.state(projectId, jobId) ?? this.create(projectId, jobId);
    for (const [field, value] of Object.entries(patch)) {
      if (value === undefined) delete (state.job as unknown as Record<string, unknown>)[field];
      else (state.job as unknown as Record<string, unknown>)[field] = value;
    }
    if (patch.status === 'active') this.activate(projectId, state, false);
    else if (patch.status !== undefined) {
      state.settlesAtMs = null;
      state.startsAtMs = null;
    }
    return snapshot(state.job);
  }

  /** Archives a job now; it refuses messages from then on. */
  archive(projectId: string, jobId: string): AgentJob {
    const state = this.state(projectId, jobId);
    if (!state) throw new Error(`unknown agent job ${projectId}/${jobId}`);
    state.job.status = 'archived';
    state.job.archivedAt = new Date(this.now()).toISOString();
    state.settlesAtMs = null;
    state.startsAtMs = null;
    return snapshot(state.job);
  }

  /** Starts the job's next run, `pickupMs` from now; returns how long it lasts. */
  private activate(projectId: string, state: JobState, clearLink = true, pickupMs = 0): number {
    state.runs++;
    const runMs = runTimeMs(this.seed, projectId, state.job.id, state.runs, this.agentTimeMs, this.agentTimeJitter);
    state.settlesAtMs = this.now() + pickupMs + runMs;
    state.startsAtMs = pickupMs > 0 ? this.now() + pickupMs : null;
    if (pickupMs > 0) return runMs;
    state.job.status = 'active';
    // A link left from an earlier run would look like this run's result.
    if (clearLink) state.job.prLink = null;
    return runMs;
  }

  private state(projectId: string, jobId: string): JobState | undefined {
    const id = stateId(projectId, jobId);
    let state = this.states.get(id);
    if (!state) {
      const job = seededJob(this.seed, projectId, jobId, this.jobsPerProject);
      if (!job) return undefined;
      state = { job, runs: 0, settlesAtMs: null, startsAtMs: null };
      this.states.set(id, state);
    }
    this.settle(projectId, state);
    return state;
  }

  private create(projectId: string, jobId: string): JobState {
    const job: AgentJob = { id: jobId, status: 'completed', prLink: null, createdAt: new Date(this.now()).toISOString() };
    const state: JobState = { job, runs: 0, settlesAtMs: null, startsAtMs: null };
    this.states.set(stateId(projectId, jobId), state);
    return state;
  }

  private settle(projectId: string, state: JobState): void {
    if (state.startsAtMs !== null && this.now() >= state.startsAtMs) {
      state.startsAtMs = null;
      state.job.status = 'active';
      state.job.prLink = null;
    }
    if (state.settlesAtMs === null || this.now() < state.settlesAtMs) return;
    const outcome = runOutcome(this.seed, projectId, state.job, state.runs);
    state.job.status = outcome.status;
    state.job.prLink = outcome.prLink;
    state.settlesAtMs = null;
  }
}

function stateId(projectId: string, jobId: string): string {
  return `${projectId}\u0000${jobId}`;
}

function snapshot(job: AgentJob): AgentJob {
  return { ...job, ...(job.source ? { source: { ...job.source } } : {}) };
}
