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
export { ANALYTICS_DATASETS, ITEM_DATASETS, type AnalyticsDataset, type ItemDataset } from './analytics-dataset.js';
export { defaultItemCount, MAX_ITEMS_PER_WINDOW, type AnalyticsKnobs } from './analytics-knobs.js';
export { analyticsThread, analyticsTruth, type TruthByDataset, type TruthOptions } from './analytics-truth.js';
export { DEFAULT_WINDOW_DAYS, FEEDBACK_SOURCES, FEEDBACK_STATUSES, type FeedbackFilters } from './analytics-query.js';
export type { FeedbackItem } from './compute-feedback.js';
export type { AssistantRow } from './compute-assistant.js';
export type { SearchRow } from './compute-searches.js';
export type { AssistantThread, CallerStats, ThreadMessage } from './served-assistant.js';
export type { FeedbackByPageRow } from './served-feedback.js';
export type { TrafficRow } from './traffic-window.js';
