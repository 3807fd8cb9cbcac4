/** The local Mintlify API emulator: public exports, by name. */
export { createEmulator, type Emulator } from './create-emulator.js';
export { startEmulator, type RunningEmulator, type StartEmulatorOptions } from './start-emulator.js';
export { resolveEmulatorOptions, type EmulatorOptions, type ResolvedEmulatorOptions } from './emulator-options.js';
export type { EmulatorControl } from './emulator-control.js';
export { EmulatorCounters, type RouteCounters } from './emulator-counters.js';
export type { ReceivedCreate, ReceivedMessage } from './received-message.js';
export {
  computeWindow,
  defaultPathCount,
  MAX_PATHS_PER_WINDOW,
  type AnalyticsWindow,
  type SiteTotals,
  type VisitorRow,
} from './compute-window.js';
export { isSeededArchived, runTimeMs, seededJob, type AgentJob, type AgentJobStatus } from './agent-job.js';
export type { AgentJobPatch } from './agent-job-store.js';
export { FAULT_KINDS, ROUTE_NAMES, type Fault, type FaultKind, type FaultRates, type FaultTiming, type RouteName } from './faults.js';
export { parseApiDate } from './api-date.js';
export type { AnalyticsDataset, EmulatorDataset, Truth } from './analytics-dataset.js';
export { ANALYTICS_DATASETS, EMULATOR_DATASETS } from './datasets/index.js';
export { defaultItemCount, MAX_ITEMS_PER_WINDOW, type AnalyticsKnobs } from './analytics-knobs.js';
export { analyticsThread, analyticsTruth, type TruthByDataset, type TruthOptions } from './analytics-truth.js';
export { DEFAULT_WINDOW_DAYS, FEEDBACK_SOURCES, FEEDBACK_STATUSES, type FeedbackFilters } from './analytics-query.js';
export type { FeedbackItem } from './datasets/feedback.js';
export type { AssistantRow } from './datasets/assistant.js';
export type { AssistantThread } from './datasets/assistant-threads.js';
export type { TrafficRow } from './traffic-window.js';
