/** One message the emulator accepted (processed): what tests inspect for duplicates and ordering. */
import type { AgentJobStatus } from './agent-job.js';

export interface ReceivedMessage {
  projectId: string;
  jobId: string;
  prompt: string;
  /** Epoch milliseconds (the emulator's clock). */
  receivedAt: number;
  /** The job's status when the message arrived; `active` means a client sent to a running job. */
  statusBefore: AgentJobStatus;
}
