/**
 * Every dataset the emulator serves, by the pipeline's dataset names (src/datasets/): one fixture
 * file each. The type makes a name missing here, or one the pipeline does not know, a compile error.
 */
import type { DatasetName } from '../../datasets/index.js';
import type { EmulatorDataset } from '../analytics-dataset.js';
import { assistant } from './assistant.js';
import { assistantCallerStats } from './assistant-caller-stats.js';
import { assistantThreads } from './assistant-threads.js';
import { feedback } from './feedback.js';
import { feedbackByPage } from './feedback-by-page.js';
import { searches } from './searches.js';
import { views } from './views.js';
import { visitors } from './visitors.js';

export const EMULATOR_DATASETS = {
  visitors,
  views,
  feedback,
  'feedback-by-page': feedbackByPage,
  assistant,
  'assistant-caller-stats': assistantCallerStats,
  searches,
  'assistant-threads': assistantThreads,
} as const satisfies Record<DatasetName, EmulatorDataset>;

export type EmulatorDatasets = typeof EMULATOR_DATASETS;

/** The names the emulator serves, in the registry's order. */
export const ANALYTICS_DATASETS = Object.keys(EMULATOR_DATASETS) as DatasetName[];
