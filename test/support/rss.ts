import { readFileSync } from 'node:fs';

/** Resident memory of a live process (VmRSS in /proc/<pid>/status), in bytes; undefined once it is gone. */
export function vmRssBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every `intervalMs` until stopped; stop() returns the highest seen (0 when none). */
export function sampleRss(pid: number, intervalMs = 50): { stop(): number } {
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, vmRssBytes(pid) ?? 0);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
