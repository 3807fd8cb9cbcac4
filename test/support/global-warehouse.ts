/**
 * The run's migrated warehouse template (warehouse-template.ts), made once before any test file
 * runs and removed after the last.
 */
import { makeWarehouseTemplate } from './warehouse-template.js';

export default async function setup(): Promise<() => void> {
  return makeWarehouseTemplate();
}
