/** Runs the emulator in its own process for benchmarks (so it does not share our CPU time). */
import { startEmulator } from '../src/emulator/index.js';

const latencyMs = Number(process.argv[2] ?? 25);
const agentTimeMs = Number(process.argv[3] ?? 1000);
const agentTimeJitter = Number(process.argv[4] ?? 0);
const emulator = await startEmulator({ port: 0, latencyMs, agentTimeMs, agentTimeJitter, jobsPerProject: 1000 });
process.stdout.write(`${emulator.url}\n`);
process.on('SIGTERM', () => void emulator.close().then(() => process.exit(0)));
// A bench that dies (Ctrl-C, a timeout's SIGTERM, a crash) takes its emulator with it: the IPC
// channel of `fork` closes with the parent.
process.on('disconnect', () => process.exit(0));
// The parent asks for what the emulator saw (over the IPC channel of `fork`).
process.on('message', (message) => {
  if (message !== 'stats') return;
  const keys = emulator.messages.map((m) => `${m.projectId}\u0000${m.jobId}\u0000${m.prompt}`);
  const createKeys = emulator.creates.map((c) => `${c.projectId}\u0000${c.prompt}`);
  // Each agent job's runs (its create and messages) in the order they arrived.
  const runsOf = new Map<string, { receivedAt: number; runMs: number }[]>();
  for (const run of [...emulator.creates, ...emulator.messages]) {
    const key = `${run.projectId}\u0000${run.jobId}`;
    const runs = runsOf.get(key) ?? [];
    runs.push(run);
    runsOf.set(key, runs);
  }
  // The job whose runs took longest in all (the agents' own time); every job's first arrival, its
  // gaps from a run's end to the next run's arrival, and when the last run of all ended.
  let longest: { agentMs: number; runs: { receivedAt: number; runMs: number }[] } = { agentMs: 0, runs: [] };
  const firstReceived: number[] = [];
  const gaps: number[] = [];
  let lastEnded = 0;
  for (const runs of runsOf.values()) {
    runs.sort((a, b) => a.receivedAt - b.receivedAt);
    const agentMs = runs.reduce((sum, run) => sum + run.runMs, 0);
    if (agentMs > longest.agentMs) longest = { agentMs, runs };
    firstReceived.push(runs[0]!.receivedAt);
    for (let i = 1; i < runs.length; i++) gaps.push(runs[i]!.receivedAt - (runs[i - 1]!.receivedAt + runs[i - 1]!.runMs));
    const last = runs[runs.length - 1]!;
    lastEnded = Math.max(lastEnded, last.receivedAt + last.runMs);
  }
  process.send?.({
    firstReceived,
    gaps,
    lastEnded,
    messageRequests: emulator.counters.messageRequests,
    createRequests: emulator.counters.createRequests,
    jobRequests: emulator.counters.jobRequests,
    messages: emulator.messages.length,
    creates: emulator.creates.length,
    duplicates: keys.length - new Set(keys).size + createKeys.length - new Set(createKeys).size,
    sentWhileActive: emulator.messages.filter((m) => m.statusBefore === 'active').length,
    longestChainAgentMs: longest.agentMs,
    longestChainRuns: longest.runs.length,
    longestChainRunTimes: longest.runs.map((run) => ({ receivedAt: run.receivedAt, endedAt: run.receivedAt + run.runMs })),
  });
});
