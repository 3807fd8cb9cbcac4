/** Queued batch prompting: exports by name. */
export type { PromptDeps, PromptObserver } from './prompt-deps.js';
export { PROMPT_STATUSES, DELIVERED_STATUSES, FINAL_STATUSES, isDelivered, type PromptStatus } from './prompt-status.js';
export { validatePrompt, type LineProblem, type PromptInput, type PromptLimits, type PromptLine } from './prompt-input.js';
export {
  detectFormat,
  parsePromptText,
  problemLines,
  readPromptFile,
  SHOWN_PROBLEMS,
  type PromptFile,
  type PromptFileFormat,
  type PromptFileOptions,
} from './read-prompt-file.js';
export { isBatchId } from './batch-id-format.js';
export { batchIdFor, promptIdFor } from './prompt-ids.js';
export { submitBatch, type SubmitDeps, type SubmitOptions, type SubmittedBatch } from './submit-batch.js';
export {
  batchStatus,
  BatchNotFoundError,
  nonZeroCounts,
  type BatchStatus,
  type BatchStatusOptions,
  type ChainSummary,
  type PromptSummary,
} from './batch-status.js';
export { waitForBatch, type WaitOptions } from './wait-for-batch.js';
export { BatchStartFailedError, startFailureReason } from './batch-start-failure.js';
export { resendAmbiguous, type ResendOptions, type ResendResult } from './resend-ambiguous.js';
export { cancelBatch, type CancelResult } from './cancel-batch.js';
export { BatchNotInLedgerError, requestRecovery, waitForRecovery, type RecoveryRequest } from './recover-batch.js';
export { promptIdentities } from './prompt-identity.js';
export { planChains, type ChainPlan, type PlannedPrompt, type PlanOptions, type PromptKind } from './plan-chains.js';
export { PollPace } from './poll-pace.js';
export { createPromptContext, GET_RETRY, type PromptContext, type PromptTiming } from './prompt-context.js';
export { runPromptStep, abandonPrompt } from './prompt-step.js';
export { startBatch, type StartedBatch } from './start-batch.js';
export { BATCH_JOB, PROMPT_JOB, batchJobId, promptJobId, type BatchJobData, type PromptJobData } from './prompt-jobs.js';
export type { StepOutcome } from './step-scope.js';
export { PromptStore } from './prompt-store.js';
export type { PromptRecord } from './prompt-record.js';
export { allDelivered, failureLine, formatBatchReport, progressLine } from './format-batch.js';
export { promptsFromQueryRows, MAX_KEY_LENGTH, type QueryPrompts } from './query-rows.js';
export { dedupeKeys, type KeyDedupe, type KeyLedgerEntry, type SkippedRow } from './dedupe-keys.js';
