import { fork, type ChildProcess } from 'node:child_process';

export interface EmulatorStats {
  messageRequests: number;
  createRequests: number;
  jobRequests: number;
  messages: number;
  creates: number;
  /** POSTs (messages and creates) the emulator processed more than once. */
  duplicates: number;
  sentWhileActive: number;
  /** The agent job whose runs took longest in all: its run times summed, and how many runs. */
  longestChainAgentMs: number;
  longestChainRuns: number;
  /** The longest job's runs in order: received and ended, epoch ms of the emulator's clock. */
  longestChainRunTimes: { receivedAt: number; endedAt: number }[];
  /** Every job's first run: when the emulator received it (epoch ms). */
  firstReceived: number[];
  /** Every job's waits from a run's end to its next run's arrival (ms). */
  gaps: number[];
  /** When the last run of all ended (epoch ms). */
  lastEnded: number;
}

export async function spawnEmulator(
  latencyMs: number,
  agentTimeMs = 1000,
  agentTimeJitter = 0,
): Promise<{ url: string; child: ChildProcess; stats(): Promise<EmulatorStats>; stop(): void }> {
  const child = fork('bin/run-ts.mjs', ['bench/emulator-child.ts', String(latencyMs), String(agentTimeMs), String(agentTimeJitter)], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  return {
    url,
    child,
    stats: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m as EmulatorStats));
        child.send('stats');
      }),
    stop: () => child.kill('SIGTERM'),
  };
}

/** Samples this process's RSS; `peak()` is the highest seen since `start`. */
export function rssSampler(intervalMs = 25) {
  let peak = process.memoryUsage().rss;
  let heapPeak = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    const usage = process.memoryUsage();
    peak = Math.max(peak, usage.rss);
    heapPeak = Math.max(heapPeak, usage.heapUsed);
  }, intervalMs);
  return {
    reset() {
      global.gc?.();
      peak = process.memoryUsage().rss;
      heapPeak = process.memoryUsage().heapUsed;
    },
    peak: () => Math.max(peak, process.memoryUsage().rss),
    /** Peak JS heap in use: the memory mintpipe's own code holds (rows, pages, batches). */
    heapPeak: () => Math.max(heapPeak, process.memoryUsage().heapUsed),
    stop: () => clearInterval(timer),
  };
}

export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

/**
 * Live JS heap after a full GC, sampled every `intervalMs` (needs --expose-gc): what mintpipe's
 * own code retains (rows, pages, batches), without V8's lazy collection in the way.
 */
export function liveHeapSampler(intervalMs = 200) {
  const gc = (globalThis as { gc?: () => void }).gc;
  let peak = 0;
  const sample = () => {
    gc?.();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    peak: () => peak,
    stop: () => clearInterval(timer),
  };
}
