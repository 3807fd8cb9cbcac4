/**
 * Stopping a cancelled query by its id or marker: a KILL that reaches the engine before the query
 * is registered there (its request still on the way, or still applying its settings) finds
 * nothing, and the query would then run to its own end. The KILL is sent again until it finds the
 * query, for a bounded time (the query may also have ended on its own, or never start).
 */
const RETRY_MS = 100;
const GIVE_UP_MS = 3000;

/** `kill` sends one KILL and says whether it found the query. */
export async function killUntilFound(kill: () => Promise<boolean>, giveUpMs = GIVE_UP_MS): Promise<void> {
  const deadline = Date.now() + giveUpMs;
  while (!(await kill()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
}
