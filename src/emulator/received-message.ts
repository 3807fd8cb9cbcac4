/**
 * What the emulator accepted (processed), in order of arrival: the POST log tests inspect for
 * duplicates and ordering. Messages and creates are kept apart (a create has no job before it).
 */
import type { AgentJobStatus } from './agent-job.js';

export interface ReceivedMessage {
  projectId: string;
  jobId: string;
  prompt: string;
  /** Epoch milliseconds (the emulator's clock). */
  receivedAt: number;
  /** The job's status when the message arrived; `active` means a client sent to a running job. */
  statusBefore: AgentJobStatus;
  /** How long the run this message started lasts (the agent's own time). */
  runMs: number;
}

/** One agent job the emulator created (`POST /v2/agent/{projectId}/job`). */
export interface ReceivedCreate {
  projectId: string;
  /** The id of the job it created. */
  jobId: string;
  prompt: string;
  /** Epoch milliseconds (the emulator's clock). */
  receivedAt: number;
  /** How long the job's first run lasts. */
  runMs: number;
}
