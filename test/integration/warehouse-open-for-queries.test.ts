/**
 * A one-shot read-only query holds the embedded warehouse without the ClickHouse client
 * (openEmbeddedForQueries), and only when the warehouse is current: a fresh or older one is
 * handed back, released, for openWarehouse to create or migrate.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedForQueries, openWarehouse, runQuery } from '../../src/warehouse/index.js';
import { initialSchema } from '../../src/warehouse/migration-001-initial.js';

const scratch = mkdtempSync(join(tmpdir(), 'mintpipe-wh-for-queries-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const database = 'mintpipe_for_queries';

describe('openEmbeddedForQueries', () => {
  it('hands a fresh directory back released; once openWarehouse made it current, holds it for queries', async () => {
    const dataDir = join(scratch, 'fresh');
    const pidFile = join(dataDir, 'clickhouse', 'mintpipe.pid');
    expect(await openEmbeddedForQueries({ database, dataDir })).toBeUndefined();
    expect(existsSync(pidFile)).toBe(false);

    const wh = await openWarehouse({ database, dataDir });
    await wh.close();

    const target = await openEmbeddedForQueries({ database, dataDir });
    expect(target).toMatchObject({ engine: 'embedded', database, location: join(dataDir, 'clickhouse') });
    expect(readFileSync(pidFile, 'utf8').trim().split(' ')[0]).toBe(String(process.pid));
    expect((await runQuery(target!, 'SELECT count() AS n FROM visitors')).rows).toEqual([{ n: 0 }]);
    await expect(runQuery(target!, "SELECT * FROM file('/etc/passwd', 'CSV')")).rejects.toThrow(/file\(\) is not allowed/);
    await target!.close();
    await target!.close();
    expect(existsSync(pidFile)).toBe(false);
  });

  it('hands an older schema back released, so openWarehouse applies the missing migrations', async () => {
    const dataDir = join(scratch, 'older');
    const old = await openWarehouse({ database, dataDir, migrations: [initialSchema] });
    await old.close();
    expect(await openEmbeddedForQueries({ database, dataDir })).toBeUndefined();
    expect(existsSync(join(dataDir, 'clickhouse', 'mintpipe.pid'))).toBe(false);
    const current = await openWarehouse({ database, dataDir });
    await current.close();
    const target = await openEmbeddedForQueries({ database, dataDir });
    expect(target?.engine).toBe('embedded');
    await target?.close();
  });
});
