/**
 * Which warehouse engine runs is decided in one place (warehouseEngine in src/warehouse/factory.ts);
 * everything else asks the engine what it needs. And config/ reads no queue code: parsing a
 * Redis URL is configuration.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configuredEngine } from '../../src/warehouse/factory.js';

/** The TypeScript files under `dir`, with their text. */
function sources(dir: string): Array<{ file: string; text: string }> {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ file: join(dir, file), text: readFileSync(join(dir, file), 'utf8') }));
}

describe('the warehouse engine seam', () => {
  it('names the embedded engine by its directory, which one process at a time holds', () => {
    const engine = configuredEngine({ dataDir: 'some/data', clickhouse: { database: 'mintpipe' } });
    expect(engine).toMatchObject({ kind: 'embedded', exclusiveDir: resolve('some/data/clickhouse'), setting: 'MINTPIPE_DATA_DIR' });
    expect(engine.title).toBe('the embedded warehouse in some/data');
  });

  it('names a server by its URL without credentials, which every process opens itself', () => {
    const engine = configuredEngine({ dataDir: 'some/data', clickhouse: { url: 'http://app:s3cret@db.example:8123', database: 'mintpipe' } });
    expect(engine).toMatchObject({ kind: 'server', exclusiveDir: undefined, setting: 'CLICKHOUSE_URL', location: 'http://db.example:8123/' });
    expect(engine.title).toBe('a ClickHouse server (CLICKHOUSE_URL)');
  });

  it('is the only place in src/ that looks at the ClickHouse URL or compares an engine kind', () => {
    const asks = /clickhouse\.url|CLICKHOUSE_URL\?|[!=]==\s*'(embedded|server)'|'(embedded|server)'\s*[!=]==/;
    const offenders = sources('src').filter(({ text }) => text.split('\n').some((line) => asks.test(line)));
    expect(offenders.map(({ file }) => file)).toEqual([]);
  });

  it('keeps config/ free of imports from src/queue/', () => {
    const offenders = sources('config').filter(({ text }) => /from '\.\.\/src\/queue\//.test(text));
    expect(offenders.map(({ file }) => file)).toEqual([]);
  });
});
