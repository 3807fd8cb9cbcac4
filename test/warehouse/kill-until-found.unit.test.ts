import { describe, expect, it } from 'vitest';
import { killUntilFound } from '../../src/warehouse/kill-until-found.js';

describe('stopping a cancelled query that may not have reached the engine yet', () => {
  it('sends the KILL again until it finds the query', async () => {
    let sent = 0;
    await killUntilFound(async () => ++sent === 3);
    expect(sent).toBe(3);
  });

  it('sends it once when the first finds the query', async () => {
    let sent = 0;
    await killUntilFound(async () => (++sent, true));
    expect(sent).toBe(1);
  });

  it('gives up after its bound when the query never shows (it ended on its own, or never started)', async () => {
    let sent = 0;
    await killUntilFound(async () => (++sent, false), 250);
    // Sent again at its interval (100 ms) within the bound, then no more: the call returned.
    expect(sent).toBeGreaterThan(1);
    expect(sent).toBeLessThan(10);
  });
});
