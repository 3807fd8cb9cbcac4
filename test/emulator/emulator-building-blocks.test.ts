import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emulatorOptionsFromFlags, register, type EmulatorFlags } from '../../src/cli/commands/emulator.js';
import { DocsPathSpace } from '../../src/emulator/docs-paths.js';
import { FixedWindowLimiter } from '../../src/emulator/fixed-window-limiter.js';
import { LruCache } from '../../src/emulator/lru-cache.js';
import { computeWindow, parseApiDate, seededJob } from '../../src/emulator/index.js';
import { UsageError } from '../../src/errors.js';

describe('emulator dates', () => {
  it('reads YYYY-MM-DD and ISO 8601 with or without an offset, as UTC when none is given', () => {
    expect(parseApiDate('2026-01-01')).toBe(Date.UTC(2026, 0, 1));
    expect(parseApiDate('2026-01-01T10:30')).toBe(Date.UTC(2026, 0, 1, 10, 30));
    expect(parseApiDate('2026-01-01T10:30:15.250Z')).toBe(Date.UTC(2026, 0, 1, 10, 30, 15, 250));
    expect(parseApiDate('2026-01-01T02:00:00+02:00')).toBe(Date.UTC(2026, 0, 1));
    expect(parseApiDate('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
  });

  it.each(['2026-02-30', '2025-02-29', '2026-04-31', '2026-00-10', '2026-1-1', '2026-01-01T24:00:00Z', '2026-01-01T10:61', '20260101', ''])(
    'refuses %j instead of rolling it over',
    (text) => {
      expect(parseApiDate(text)).toBeUndefined();
    },
  );
});

describe('emulator docs paths', () => {
  it('sorts paths by key exactly as by name, past the word lists capacity, and inverts keys', () => {
    const count = 30_000;
    const space = new DocsPathSpace(42, 'acme', count);
    const indexes = Array.from({ length: count }, (_, i) => i);
    const byKey = [...indexes].sort((a, b) => space.key(a) - space.key(b)).map((i) => space.name(i));
    const byName = indexes.map((i) => space.name(i)).sort();
    expect(byKey).toEqual(byName);
    expect(new Set(byName).size).toBe(count);
    expect(byName).toContain('/introduction');
    expect(byName.some((name) => /-3$/.test(name))).toBe(true);
    expect(indexes.every((i) => space.indexOf(space.key(i)) === i)).toBe(true);
  });

  it('refuses windows it cannot compute, naming the input', () => {
    expect(() => computeWindow(42, 'acme', '2026-02-30', '2026-03-01')).toThrow(/dateFrom/);
    expect(() => computeWindow(42, 'acme', '2026-03-01', '2026-03-01')).toThrow(/after/);
    expect(() => computeWindow(42, 'acme', '2026-03-01', '2026-03-02', -1)).toThrow(/pathCount/);
  });

  it('returns the same window for a pure recomputation, and an empty one for zero paths', () => {
    expect(computeWindow(9, 'p', '2026-01-01', '2026-01-03')).toEqual(computeWindow(9, 'p', '2026-01-01', '2026-01-03'));
    expect(computeWindow(9, 'p', '2026-01-01', '2026-01-03', 0)).toEqual({ totals: { human: 0, ai: 0, total: 0 }, visitors: [] });
  });
});

describe('emulator seeded jobs and limiter', () => {
  it('derives jobs only for job-1 … job-N', () => {
    expect(seededJob(42, 'acme', 'job-3', 5)?.id).toBe('job-3');
    expect(seededJob(42, 'acme', 'job-6', 5)).toBeUndefined();
    expect(seededJob(42, 'acme', 'job-3', 5)).toEqual(seededJob(42, 'acme', 'job-3', 5));
  });

  it('rounds Retry-After up to whole seconds until the fixed window ends', () => {
    let nowMs = 3_600_000 * 10 + 3_599_001;
    const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 3_600_000 }, () => nowMs);
    expect(limiter.take('org')).toEqual({ allowed: true });
    expect(limiter.take('org')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    nowMs -= 3_599_000;
    expect(limiter.take('org')).toEqual({ allowed: false, retryAfterSeconds: 3600 });
    nowMs += 3_599_999;
    expect(limiter.take('org')).toEqual({ allowed: true });
  });
});

describe('emulator window cache', () => {
  it('drops the least recently used window when over its entry or row budget, but keeps the newest', () => {
    const cache = new LruCache<string, number>(2, 100);
    cache.set('a', 1, 10);
    cache.set('b', 2, 10);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3, 10);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
    cache.set('huge', 4, 500);
    expect([cache.size, cache.get('huge')]).toEqual([1, 4]);
  });
});

describe('mintpipe emulator command', () => {
  const defaults: EmulatorFlags = {
    port: '4010',
    host: '127.0.0.1',
    seed: '42',
    latency: '0',
    faultRate: '0',
    analyticsRate: 'off',
    messageRate: 'off',
    agentTime: '1s',
    jobsPerProject: '500',
  };

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('turns flags into emulator options, spreading --fault-rate over 5xx, 429 and resets', () => {
    const options = emulatorOptionsFromFlags({
      ...defaults,
      latency: '250ms',
      faultRate: '0.4',
      analyticsRate: '100/1h',
      messageRate: '20/5s',
      agentTime: '2s',
      pickupDelay: '1500ms',
    });
    expect(options).toMatchObject({
      pickupDelayMs: 1500,
      port: 4010,
      latencyMs: 250,
      analyticsRate: { limit: 100, windowMs: 3_600_000 },
      messageRate: { limit: 20, windowMs: 5000 },
      agentTimeMs: 2000,
      jobsPerProject: 500,
    });
    const faults = options.faults!;
    expect(faults.serverErrorRate! + faults.rateLimitRate! + faults.resetRate!).toBeCloseTo(0.4);
    expect(Math.min(faults.serverErrorRate!, faults.rateLimitRate!, faults.resetRate!)).toBeGreaterThan(0);
  });

  it('turns the analytics knob flags into emulator options, all off by default', () => {
    expect(emulatorOptionsFromFlags(defaults)).toMatchObject({
      pickupDelayMs: 0,
      shuffle: false,
      approximateCounts: 0,
      extraFields: false,
      invalidText: 0,
      maxPageRows: null,
      cursorTtlMs: null,
    });
    const options = emulatorOptionsFromFlags({
      ...defaults,
      shuffle: true,
      approximateCounts: '0.05',
      extraFields: true,
      invalidText: '0.01',
      maxPageRows: '100',
      cursorTtl: '10m',
    });
    expect(options).toMatchObject({ shuffle: true, approximateCounts: 0.05, extraFields: true, invalidText: 0.01, maxPageRows: 100, cursorTtlMs: 600_000 });
  });

  it.each([
    ['approximateCounts', '2', '--approximate-counts'],
    ['invalidText', 'some', '--invalid-text'],
    ['maxPageRows', '0', '--max-page-rows'],
    ['cursorTtl', 'later', '--cursor-ttl'],
    ['port', '70000', '--port'],
    ['port', 'abc', '--port'],
    ['seed', '-1', '--seed'],
    ['latency', 'soon', '--latency'],
    ['faultRate', '1.5', '--fault-rate'],
    ['faultRate', 'x', '--fault-rate'],
    ['analyticsRate', '100', '--analytics-rate'],
    ['messageRate', '0/1h', '--message-rate'],
    ['agentTime', '-1s', '--agent-time'],
    ['pickupDelay', 'later', '--pickup-delay'],
    ['jobsPerProject', '0', '--jobs-per-project'],
  ] as const)('refuses %s=%j with a one-line usage error naming %s', (field, value, flag) => {
    let error: unknown;
    try {
      emulatorOptionsFromFlags({ ...defaults, [field]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toMatch(new RegExp(`^${flag}: `));
    expect((error as UsageError).message).not.toContain('\n');
  });

  it('prints the URL and a sample curl line, serves, and stops cleanly on SIGINT', async () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const program = new Command('mintpipe').exitOverride();
    register(program);
    const done = program.parseAsync(['node', 'mintpipe', 'emulator', '--port', '0', '--agent-time', '50ms']);
    await vi.waitFor(() => expect(lines.join('')).toContain('curl'), { timeout: 10_000 });
    const url = /listening on (http:\/\/\S+)/.exec(lines.join(''))![1]!;
    const response = await fetch(`${url}/v2/agent/acme/job/job-1`, { headers: { authorization: 'Bearer mint_demo' } });
    expect(response.status).toBe(200);
    process.emit('SIGINT');
    await done;
    expect(lines.join('')).toContain('stopped');
    await expect(fetch(`${url}/v2/agent/acme/job/job-1`)).rejects.toThrow();
  });
});
