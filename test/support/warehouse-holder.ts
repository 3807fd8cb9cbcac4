/**
 * Holds an embedded warehouse directory for lock tests until its stdin closes, then closes and exits.
 * Usage: node --import tsx test/support/warehouse-holder.ts <dataDir> [warehouse|engine|starting] [forever]
 *   warehouse: through openWarehouse (writes the pid file); engine: the bare engine (no pid file);
 *   starting: a worker starting up — it claims the directory, and opens the warehouse and serves
 *   its gateway only when a line `serve` comes on stdin.
 *   forever: ignore stdin and hold until killed (for a holder started in the background of a shell).
 */
import { join } from 'node:path';
import { createChdbConnection } from 'chdb/connection';
import { claimDirectory, declareCommand } from '../../src/warehouse/embedded-lock.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { serveWarehouseGateway } from '../../src/warehouse/warehouse-gateway.js';

const [dataDir, mode = 'warehouse', hold] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: warehouse-holder.ts <dataDir> [warehouse|engine]');

let close: () => Promise<void>;
if (mode === 'starting') {
  declareCommand('worker');
  claimDirectory(join(dataDir, 'clickhouse'));
  process.stdout.write(`claimed ${process.pid}\n`);
  await new Promise<void>((resolve) => process.stdin.on('data', (chunk: Buffer) => chunk.toString().includes('serve') && resolve()));
  const wh = await openWarehouse({ database: 'mintpipe', dataDir });
  const stopGateway = await serveWarehouseGateway(wh, dataDir);
  close = async () => {
    await stopGateway();
    await wh.close();
  };
} else if (mode === 'engine') {
  const connection = createChdbConnection({ path: join(dataDir, 'clickhouse') });
  close = () => connection.close();
} else {
  const wh = await openWarehouse({ database: 'mintpipe_lock_test', dataDir });
  close = () => wh.close();
}
process.stdout.write(`ready ${process.pid}\n`);
if (hold === 'forever') setInterval(() => {}, 60_000);
else process.stdin.resume();
process.stdin.on('end', () => {
  void close().then(() => process.exit(0));
});
