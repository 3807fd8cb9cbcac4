import { describe, expect, it } from 'vitest';
import { upstreamMismatch, type JobUpstream } from '../../src/queue/job-upstream.js';

const real: JobUpstream = { url: 'https://api.mintlify.com', keyFingerprint: 'a'.repeat(64) };
const demo = (port: number, key: string): JobUpstream => ({ url: `http://127.0.0.1:${port}`, keyFingerprint: key.repeat(64), builtInEmulator: true });

describe('which worker runs a job recorded for an upstream', () => {
  it('any worker runs a job that recorded none, and one with the same URL and key fingerprint runs its own', () => {
    expect(upstreamMismatch(undefined, demo(1, 'b'))).toBeUndefined();
    expect(upstreamMismatch(real, { ...real })).toBeUndefined();
  });

  it('a worker with another URL or another key does not, and says both by URL and fingerprint', () => {
    expect(upstreamMismatch(real, { ...real, url: 'https://eu.mintlify.example' })?.message).toBe(
      'enqueued for https://api.mintlify.com (key aaaaaaaa), and this worker sends to https://eu.mintlify.example (key aaaaaaaa): not run; enqueue it again from a shell with this worker\'s settings, or run it with a worker that has the settings it was enqueued with',
    );
    expect(upstreamMismatch(real, { ...real, keyFingerprint: 'c'.repeat(64) })?.message).toMatch(/^enqueued for https:\/\/api\.mintlify\.com \(key aaaaaaaa\), and this worker sends to https:\/\/api\.mintlify\.com \(key cccccccc\)/);
    expect(upstreamMismatch({ ...real, keyFingerprint: null }, real)?.message).toMatch(/^enqueued for https:\/\/api\.mintlify\.com \(key none\)/);
  });

  it('two built-in emulators are one upstream, whatever their ports and keys; the built-in emulator and a real API are not', () => {
    expect(upstreamMismatch(demo(4000, 'b'), demo(5000, 'c'))).toBeUndefined();
    expect(upstreamMismatch(real, demo(4000, 'b'))?.message).toMatch(/^enqueued for https:\/\/api\.mintlify\.com \(key aaaaaaaa\), and this worker sends to the built-in emulator:/);
    expect(upstreamMismatch(demo(4000, 'b'), { ...real, url: 'http://127.0.0.1:4000' })?.message).toMatch(/^enqueued for the built-in emulator, and this worker sends to http:\/\/127\.0\.0\.1:4000/);
    expect(upstreamMismatch(real, demo(4000, 'b'))).toMatchObject({ name: 'UpstreamMismatchError', retryable: false, exitCode: 1 });
  });
});
