/**
 * Closes an embedded warehouse under a query still running, for the tests of what close does with
 * queries in flight. Usage:
 *   node --import tsx test/support/warehouse-closer.ts <dataDir> <select|insert|stream>
 *     select: a pipeline SELECT that runs for minutes; insert: an INSERT … SELECT as long;
 *     stream: the same SELECT streamed from a read-only session, as `mintpipe query` runs it.
 * It calls close() without awaiting it and lets the process end by itself. Prints `running` once
 * the engine runs the query, `closing` as it calls close(), `settled <how>` when the query's
 * promise settles, and its warnings as JSON lines on stderr.
 */
import { createLogger } from '../../src/logger.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { DEFAULT_QUERY_LIMITS } from '../../src/warehouse/query-limits.js';
import { until } from './wait.js';

const [dataDir, what] = process.argv.slice(2);
if (!dataDir || !['select', 'insert', 'stream'].includes(what!)) {
  throw new Error('usage: warehouse-closer.ts <dataDir> <select|insert|stream>');
}

/** Minutes of work on any machine: the query is certainly still running when close() is called. */
const ENDLESS = 'SELECT sum(cityHash64(number)) AS s FROM numbers(1000000000000)';

const wh = await openWarehouse({ dataDir, database: 'mintpipe_close_test', logger: createLogger({ level: 'warn', format: 'json' }) });
await wh.client.command({ query: 'CREATE TABLE IF NOT EXISTS big (n UInt64) ENGINE = MergeTree ORDER BY n' });

async function streamed(): Promise<number> {
  // A limit far past the test's patience: the query is stopped by the close, not by its timeout.
  const session = await wh.readOnlySession({ ...DEFAULT_QUERY_LIMITS, timeoutMs: 3_600_000 });
  let bytes = 0;
  try {
    for await (const chunk of session.stream({ sql: ENDLESS, select: true }, 'rows')) bytes += chunk.length;
  } finally {
    await session.close();
  }
  return bytes;
}

const query: Promise<unknown> =
  what === 'select'
    ? wh.client.query({ query: ENDLESS, format: 'JSONEachRow' }).then((r) => r.json())
    : what === 'insert'
      ? wh.client.command({ query: 'INSERT INTO big SELECT number FROM numbers(1000000000000)' })
      : streamed();
query.then(
  () => console.log('settled resolved'),
  (err: unknown) => console.log(`settled rejected ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`),
);

// Asked of the engine itself, on a session of its own, so the answer does not wait behind the query.
const probe = await wh.readOnlySession(DEFAULT_QUERY_LIMITS);
await until('the query running in the engine', async () => {
  const rows: string[] = [];
  const sql = "SELECT query FROM system.processes WHERE query LIKE '%numbers(1000000000000)%' AND query NOT LIKE '%system.processes%'";
  for await (const chunk of probe.stream({ sql, select: true }, 'json-lines')) rows.push(Buffer.from(chunk).toString());
  return rows.join('').trim() !== '' ? true : undefined;
});
await probe.close();
console.log('running');

console.log('closing');
void wh.close();
