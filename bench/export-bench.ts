/**
 * Export benchmark: one window of ~100,000 paths with 25 ms per request, measured side by side in
 * one run — mintpipe's pipeline, the sequential floor (pages × latency), and a naive sequential
 * fetch-then-insert loop — plus rows/s and peak RSS growth over the embedded engine's baseline,
 * and the same for a window 4× larger (memory must stay flat as the window grows).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/index.js';
import { MintlifyClient } from '../src/api/index.js';
import { Runtime } from '../src/cli/runtime.js';
import { enqueueWindows } from '../src/export/enqueue.js';
import { createLogger } from '../src/logger.js';
import { QUEUE_NAMES } from '../src/queue/queues.js';
import { insertRows, runQuery } from '../src/warehouse/index.js';
import { liveHeapSampler, mb, rssSampler, spawnEmulator } from './spawn-emulator.js';
import { getVisitorsPage } from '../test/support/visitors-page.js';

export interface ExportBenchResult {
  lines: string[];
}

export async function exportBench(redisUrl: string, latencyMs = 25): Promise<string[]> {
  const emulator = await spawnEmulator(latencyMs);
  const env = {
    REDIS_URL: redisUrl,
    MINTLIFY_API_URL: emulator.url,
    MINTLIFY_API_KEY: 'mint_bench',
    MINTPIPE_ANALYTICS_RATE: 'off',
    MINTPIPE_DATA_DIR: mkdtempSync(join(tmpdir(), 'mintpipe-bench-')),
    MINTPIPE_QUEUE_PREFIX: `bench${Date.now()}`,
    LOG_LEVEL: 'warn',
  };
  const config = loadConfig(env);
  const logger = createLogger({ level: 'warn', pretty: false });
  const runtime = await Runtime.open({ config, logger });
  const sampler = rssSampler();
  const lines: string[] = [];
  try {
    const warehouse = await runtime.warehouse();
    await runtime.startWorkers([QUEUE_NAMES.export]);
    const queue = runtime.queue(QUEUE_NAMES.export);
    const baseline = process.memoryUsage().rss;

    const warm = new MintlifyClient({ baseUrl: emulator.url, apiKey: 'mint_bench' });
    const runPipeline = async (projectId: string, day: string, next: string) => {
      // The emulator computes a window on its first request; keep that out of every measurement.
      await getVisitorsPage(warm, projectId, { dateFrom: day, dateTo: next, limit: 1, offset: 0 });
      sampler.reset();
      const started = performance.now();
      const [e] = await enqueueWindows(queue, [{ dataset: 'visitors', projectId, dateFrom: day, dateTo: next, kind: 'manual' }]);
      for (;;) {
        const job = await queue.getJob(e!.jobId);
        const state = await job?.getState();
        if (state === 'completed') break;
        if (state === 'failed') throw new Error(`bench window failed: ${job?.failedReason}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const ms = performance.now() - started;
      const n = Number((await runQuery(warehouse, `SELECT count() AS n FROM visitors WHERE project_id = '${projectId}' AND date_from = '${day}' AND date_to = '${next}'`)).rows[0]!.n);
      return { ms, rows: n, peakGrowth: sampler.peak() - baseline, heapPeak: sampler.heapPeak() };
    };

    const small = await runPipeline('bench-100000', '2026-10-01', '2026-10-02');
    const pages = Math.ceil(small.rows / 250) + (small.rows % 250 === 0 ? 1 : 0);
    const floorMs = pages * latencyMs;

    // Naive: one request at a time, one insert per page, into a scratch table.
    await warehouse.client.command({ query: `CREATE TABLE IF NOT EXISTS ${warehouse.database}.bench_naive (path String, human UInt64, ai UInt64, total UInt64) ENGINE = MergeTree ORDER BY path` });
    const client = new MintlifyClient({ baseUrl: emulator.url, apiKey: 'mint_bench' });
    sampler.reset();
    const naiveStart = performance.now();
    let naiveRows = 0;
    for (let offset = 0; ; offset += 250) {
      const page = await getVisitorsPage(client, 'bench-100000', { dateFrom: '2026-10-01', dateTo: '2026-10-02', limit: 250, offset });
      if (page.visitors.length) await insertRows(warehouse, 'bench_naive', page.visitors);
      naiveRows += page.visitors.length;
      if (!page.hasMore) break;
    }
    const naiveMs = performance.now() - naiveStart;

    // Memory runs: the live heap (after GC) while exporting a window and one 4× larger.
    const liveHeap = async (projectId: string, day: string) => {
      const sampler = liveHeapSampler();
      try {
        const run = await runPipeline(projectId, day, day === '2026-10-02' ? '2026-10-03' : '2026-10-04');
        return { ...run, liveHeapPeak: sampler.peak() };
      } finally {
        sampler.stop();
      }
    };
    const smallMemory = await liveHeap('bench-100000', '2026-10-02');
    const large = await liveHeap('bench-400000', '2026-10-03');

    lines.push(`export: window of ${small.rows.toLocaleString('en')} paths, ${pages} pages, ${latencyMs} ms per request`);
    lines.push(`  mintpipe pipeline        ${(small.ms / 1000).toFixed(2)} s   ${Math.round(small.rows / (small.ms / 1000)).toLocaleString('en')} rows/s   peak RSS ${mb(baseline + small.peakGrowth)} (+${mb(small.peakGrowth)} over the engine's baseline ${mb(baseline)}), peak JS heap ${mb(small.heapPeak)}`);
    lines.push(`  sequential floor         ${(floorMs / 1000).toFixed(2)} s   (pages × latency)   → mintpipe is ${(floorMs / small.ms).toFixed(1)}× faster`);
    lines.push(`  naive fetch-then-insert  ${(naiveMs / 1000).toFixed(2)} s   ${Math.round(naiveRows / (naiveMs / 1000)).toLocaleString('en')} rows/s   → mintpipe is ${(naiveMs / small.ms).toFixed(1)}× faster`);
    lines.push(
      `  memory, 1× vs 4× window  live JS heap (sampled after GC) ${mb(smallMemory.liveHeapPeak)} for ${smallMemory.rows.toLocaleString('en')} rows vs ${mb(large.liveHeapPeak)} for ${large.rows.toLocaleString('en')} rows; peak RSS +${mb(smallMemory.peakGrowth)} vs +${mb(large.peakGrowth)} (RSS includes the embedded engine's own buffers and merges)`,
    );
  } finally {
    sampler.stop();
    await runtime.close();
    emulator.stop();
  }
  return lines;
}
