import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { currentProcess, isLive, isLiveSince, parseStat, processStartTicks } from '../../src/process-identity.js';
import { until } from '../support/wait.js';

const children: Array<ReturnType<typeof spawn>> = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function sleeper() {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

describe('process identity', () => {
  it('reads the state and start time after the last parenthesis, whatever the command name holds', () => {
    const fields = ['S', ...Array.from({ length: 18 }, (_, i) => String(i + 4)), '98765', '0'];
    expect(parseStat(`42 (a) b (c) ${fields.join(' ')}`)).toEqual({ state: 'S', startTicks: '98765' });
    expect(parseStat('42 (x) S 1 2')).toBeUndefined();
  });

  it('names this process by pid and start time, and takes it as live', () => {
    const self = currentProcess();
    expect(self.pid).toBe(process.pid);
    expect(self.startTicks).toMatch(/^\d+$/);
    expect(isLive(self)).toBe(true);
  });

  it('does not take a live process with another start time as the recorded holder (a reused pid)', () => {
    const child = sleeper();
    const ticks = processStartTicks(child.pid!);
    expect(ticks).toMatch(/^\d+$/);
    expect(isLive({ pid: child.pid!, startTicks: ticks })).toBe(true);
    expect(isLive({ pid: child.pid!, startTicks: String(Number(ticks) - 1) })).toBe(false);
  });

  it('does not trust a pid alone, a dead pid, or a record that is not one', async () => {
    const child = sleeper();
    expect(isLive({ pid: child.pid! })).toBe(false);
    expect(isLive(undefined)).toBe(false);
    expect(isLive({ pid: '1' })).toBe(false);
    expect(isLive({ pid: -1, startTicks: '1' })).toBe(false);
    const ticks = processStartTicks(child.pid!);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await until('the child to be reaped', async () => (processStartTicks(child.pid!) === undefined ? true : undefined));
    expect(isLive({ pid: child.pid!, startTicks: ticks })).toBe(false);
  });

  it('takes a pid with a wall-clock record as live only when the process started no later than the record', () => {
    const child = sleeper();
    expect(isLiveSince(child.pid!, Date.now())).toBe(true);
    expect(isLiveSince(child.pid!, Date.now() - 60_000)).toBe(false);
    expect(isLiveSince(0, Date.now())).toBe(false);
  });
});
