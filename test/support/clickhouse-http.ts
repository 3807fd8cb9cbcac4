/**
 * Starts the ClickHouse HTTP interface over the embedded engine (clickhouse-http-server.ts) as a
 * child process on its own data directory, for tests of the server path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RunningClickHouseHttp {
  url: string;
  child: ChildProcess;
  close(): Promise<void>;
}

/** `users` as `name:password`: when given, every request must name one of them. */
export async function startClickHouseHttp(options: { users?: string[]; timeoutMs?: number } = {}): Promise<RunningClickHouseHttp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mintpipe-chhttp-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/clickhouse-http-server.ts', dataDir, ...(options.users ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the ClickHouse HTTP server did not start: ${stderr}`)), options.timeoutMs ?? 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = /^(\d+)\n/.exec(out);
      if (line) {
        clearTimeout(timer);
        resolve(Number(line[1]));
      }
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`the ClickHouse HTTP server exited (${code}): ${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
