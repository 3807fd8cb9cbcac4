/**
 * A start or worker holds (or is taking) the embedded warehouse but does not serve its gateway yet:
 * it is opening the engine or migrating. It will not let the warehouse go, so a reader waiting for
 * the lock would wait in vain; it waits for the gateway instead, as long as that process lives.
 */
import { gatewayPid } from './gateway-client.js';
import { longRunningHolder } from './embedded-lock.js';

const POLL_MS = 100;
/** A wait this short says nothing: a start is often serving within it. */
const QUIET_MS = 1_000;

/**
 * `served` once a gateway serves `dataDir`; `none` at once when no live start or worker holds
 * `engineDir` (or when it stopped without serving one); `silent` when one still holds it after
 * `timeoutMs` without serving. `onWait` is told once, after a second, who is waited for.
 */
export async function gatewayOfStartingHolder(
  dataDir: string,
  engineDir: string,
  options: { timeoutMs: number; onWait?: (holder: { pid: number; command: string }) => void },
): Promise<'served' | 'none' | 'silent'> {
  const startedAt = Date.now();
  let told = false;
  for (;;) {
    if (gatewayPid(dataDir) !== undefined) return 'served';
    const holder = longRunningHolder(engineDir);
    if (holder === undefined) return 'none';
    if (Date.now() - startedAt + POLL_MS > options.timeoutMs) return 'silent';
    if (!told && Date.now() - startedAt >= QUIET_MS) {
      options.onWait?.(holder);
      told = true;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
