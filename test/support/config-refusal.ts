import { ConfigError, loadConfig } from '../../config/index.js';

/**
 * The ConfigError loadConfig throws for `env`, or a failure when it accepts it (naming the keys
 * only: a value may be a secret under test).
 */
export function configRefusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(Object.keys(env))}`);
}
