/**
 * A one-shot read-only query holds the warehouse through openForQueries: a current one as it is
 * (the ClickHouse client is not made; cli-module-loading shows it is not even loaded), a fresh or
 * older one brought up to date first, all under the same lock as openWarehouse.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrations, openForQueries, openWarehouse, runQuery } from '../../src/warehouse/index.js';
import { initialSchema } from '../../src/warehouse/migration-001-initial.js';
import { fileTempDir } from '../support/test-env.js';

const scratch = fileTempDir('wh-for-queries');
const database = 'mintpipe_for_queries';

describe('openForQueries', () => {
  it('creates a fresh warehouse, holds it for read-only queries and gives it back on close', async () => {
    const dataDir = join(scratch, 'fresh');
    const pidFile = join(dataDir, 'clickhouse', 'mintpipe.pid');
    const engine = await openForQueries({ database, dataDir });
    expect(engine).toMatchObject({ kind: 'embedded', database, location: join(dataDir, 'clickhouse') });
    expect(readFileSync(pidFile, 'utf8').trim().split(' ')[0]).toBe(String(process.pid));
    expect((await runQuery(engine, 'SELECT count() AS n FROM visitors')).rows).toEqual([{ n: 0 }]);
    await expect(runQuery(engine, "SELECT * FROM file('/etc/passwd', 'CSV')")).rejects.toThrow(/file\(\) is not allowed/);
    await engine.close();
    await engine.close();
    expect(existsSync(pidFile)).toBe(false);
  });

  it('applies the migrations an older warehouse lacks before its queries run', async () => {
    const dataDir = join(scratch, 'older');
    const old = await openWarehouse({ database, dataDir, migrations: [initialSchema] });
    await old.close();
    const engine = await openForQueries({ database, dataDir });
    try {
      const recorded = await runQuery(engine, 'SELECT toUInt32(version) AS v FROM schema_migrations ORDER BY v');
      expect(recorded.rows.map((row) => row.v)).toEqual(migrations.map((m) => m.version));
    } finally {
      await engine.close();
    }
  });

});
