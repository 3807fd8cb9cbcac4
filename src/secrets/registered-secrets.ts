/**
 * The secrets of this process (the configured API key), registered once when the configuration
 * is loaded, and the redactor every layer applies before text leaves the process: the logger
 * (every line), error messages the API client builds, what jobs persist (export run errors, a
 * job's failedReason, prompt records) and what the CLI and the dashboard print. Process-wide on
 * purpose, like a CI runner's masked values: an error is often built far from the configuration,
 * and a layer that had to be handed the key to hide it would be one more place that holds it.
 */
import { createRedactor, type Redactor } from './redactor.js';

const secrets = new Set<string>();
let current: Redactor = createRedactor(secrets);

/** Adds a value never to print (undefined is ignored, so `registerSecret(config.api.key)` is fine). */
export function registerSecret(secret: string | undefined): void {
  if (!secret || secrets.has(secret)) return;
  secrets.add(secret);
  current = createRedactor(secrets);
}

/** Removes every registered secret, in any case or encoding, and anything shaped like a Mintlify key. */
export function redactSecrets(text: string): string {
  return current(text);
}
