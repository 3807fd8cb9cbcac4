/** Runs the emulator in its own process for benchmarks (so it does not share our CPU time). */
import { startEmulator } from '../src/emulator/index.js';

const latencyMs = Number(process.argv[2] ?? 25);
const agentTimeMs = Number(process.argv[3] ?? 1000);
const emulator = await startEmulator({ port: 0, latencyMs, agentTimeMs, jobsPerProject: 1000 });
process.stdout.write(`${emulator.url}\n`);
process.on('SIGTERM', () => void emulator.close().then(() => process.exit(0)));
// The parent asks for what the emulator saw (over the IPC channel of `fork`).
process.on('message', (message) => {
  if (message !== 'stats') return;
  const keys = emulator.messages.map((m) => `${m.projectId}\u0000${m.jobId}\u0000${m.prompt}`);
  process.send?.({
    messageRequests: emulator.counters.messageRequests,
    jobRequests: emulator.counters.jobRequests,
    messages: emulator.messages.length,
    duplicates: keys.length - new Set(keys).size,
    sentWhileActive: emulator.messages.filter((m) => m.statusBefore === 'active').length,
  });
});
