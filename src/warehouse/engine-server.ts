/**
 * A ClickHouse server (`CLICKHOUSE_URL`): every process opens it itself, over HTTP. User SQL runs
 * on the same client, each request carrying `readonly=1` and the limits; a query has an id of ours
 * and is stopped with `KILL QUERY WHERE query_id = …`.
 */
import { randomUUID } from 'node:crypto';
import type { ClickHouseClient, ClickHouseSettings, Row, StreamableDataFormat } from '@clickhouse/client';
import { UsageError } from '../errors.js';
import { WarehouseUnavailableError } from './errors.js';
import { killUntilFound } from './kill-until-found.js';
import { limitSettings, type QueryLimits } from './query-limits.js';
import { catalogSql, gateQuestions, type EngineRows, type ReadOnlySession, type SessionRows } from './read-only-session.js';
import { ENGINE_FORMATS, OUTPUT_SETTINGS } from './result-format.js';
import type { EngineOptions, WarehouseEngine } from './warehouse-engine.js';

export function serverEngine(options: EngineOptions & { url: string }): WarehouseEngine {
  let client: ClickHouseClient | undefined;
  let closed = false;
  const opened = (): ClickHouseClient => {
    if (!client || closed) throw new Error('the ClickHouse server is not open');
    return client;
  };
  return {
    kind: 'server',
    database: options.database,
    location: redactUrl(options.url),
    exclusiveDir: undefined,
    title: 'a ClickHouse server (CLICKHOUSE_URL)',
    setting: 'CLICKHOUSE_URL',
    async open() {
      client = await connectClient(options, options.url);
    },
    connect: async () => opened(),
    readOnlySession: (limits) => openSession(opened(), options.database, limits),
    async close() {
      if (closed) return;
      closed = true;
      await client?.close();
    },
  };
}

/** The client on the server's database, created first when missing (a server refuses every request naming a missing one). */
async function connectClient(options: EngineOptions, url: string): Promise<ClickHouseClient> {
  const { clientLogOptions, createClient } = await import('./client-factory.js');
  // Credentials written into the URL win over CLICKHOUSE_USER / CLICKHOUSE_PASSWORD.
  const inUrl = URL.canParse(url) && new URL(url).username !== '';
  const credentials = {
    url,
    ...(inUrl ? {} : { username: options.user ?? 'default', password: options.password ?? '' }),
    log: clientLogOptions(options.logger),
  };
  const bootstrap = createClient(credentials);
  try {
    await createDatabase(bootstrap, options.database);
  } catch (err) {
    let reason = err instanceof Error ? (err.message.split('\n')[0] ?? err.name) : String(err);
    for (const secret of [options.password, URL.canParse(url) ? decodeURIComponent(new URL(url).password) : '']) {
      if (secret) reason = reason.split(secret).join('[REDACTED]');
    }
    throw new WarehouseUnavailableError(redactUrl(url), reason || 'no answer', { cause: err });
  } finally {
    await bootstrap.close();
  }
  return createClient({ ...credentials, database: options.database });
}

const READONLY = 164;
const ACCESS_DENIED = 497;

/**
 * Creates the database when missing. A read-only user may not run the DDL even when there is
 * nothing to create (a server refuses it before looking): a database that exists is enough.
 */
async function createDatabase(client: ClickHouseClient, database: string): Promise<void> {
  try {
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  } catch (err) {
    const code = Number((err as { code?: unknown }).code);
    if (code !== READONLY && code !== ACCESS_DENIED) throw err;
    const result = await client.query({ query: 'SELECT count() AS n FROM system.databases WHERE name = {db:String}', query_params: { db: database }, format: 'JSONEachRow' });
    const [row] = await result.json<{ n: number | string }>();
    if (Number(row?.n) !== 1) throw err;
  }
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(unparsable url)';
  }
}

/** On a server: SQL and executable user-defined functions alike. */
const CATALOG_SQL = catalogSql(`SELECT groupArray(name) FROM system.functions WHERE origin != 'System'`);

/**
 * The user's own `readonly` on a server (its profile's): 0 for the app user, 2 for a read-only user
 * that may still set the query's limits. A server refuses any change of `readonly` under 2 and of
 * every setting under 1, so mintpipe sends `readonly=1` only where it is 0 and refuses a user at 1.
 */
async function profileReadonly(client: ClickHouseClient): Promise<number> {
  const result = await client.query({ query: "SELECT toUInt8(getSetting('readonly')) AS r", format: 'JSONEachRow' });
  const [row] = await result.json<{ r: number | string }>();
  const readonly = Number(row?.r ?? 0);
  if (readonly === 1) {
    throw new UsageError(
      `query: the ClickHouse user has readonly=1, under which no query limit can be set; give it a profile with readonly=2 (docs/deploy.md)`,
    );
  }
  return readonly;
}

/** Every request of the session carries the settings; the server enforces them. */
async function openSession(client: ClickHouseClient, database: string, limits: QueryLimits): Promise<ReadOnlySession> {
  const queryId = `mintpipe-query-${randomUUID()}`;
  const readonly = (await profileReadonly(client)) === 0 ? { readonly: '1' } : {};
  // readonly last: the server applies a request's settings in order, and after readonly=1 none
  // could be changed. A server also drops a read-only query whose HTTP client went away.
  // 64-bit integers as JSON numbers, as the embedded engine gives them: a server quotes them by
  // default (before 25.8, and wherever its profile says so), which made counts strings.
  const gateSettings = { output_format_json_quote_64bit_integers: 0, ...readonly } as ClickHouseSettings;
  // The limits are the user query's: the gate's own reads (system.functions costs more on a
  // server than embedded) must not be stopped by a short --timeout.
  const settings = {
    ...limitSettings(limits),
    ...OUTPUT_SETTINGS,
    log_comment: queryId,
    cancel_http_readonly_queries_on_client_close: 1,
    ...readonly,
  } as ClickHouseSettings;
  // exec, not query: query() appends `FORMAT …` to the SQL, which binds to the inner SELECT of an
  // EXPLAIN; the format comes from default_format instead, for the statement as a whole.
  const rows: SessionRows = async (query, queryParams) => {
    const result = await client.exec({ query, clickhouse_settings: { default_format: 'JSONCompact', ...gateSettings }, ...(queryParams ? { query_params: queryParams } : {}) });
    const chunks: Buffer[] = [];
    for await (const chunk of result.stream) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text.trim() === '' ? { data: [] } : (JSON.parse(text) as EngineRows);
  };
  return {
    ...gateQuestions(rows, database, CATALOG_SQL),
    async *stream(statement, format, signal) {
      const engineFormat = ENGINE_FORMATS[format] as StreamableDataFormat;
      const result = await client.exec({
        query: statement.sql,
        clickhouse_settings: { default_format: engineFormat, ...settings },
        query_id: queryId,
        abort_signal: signal,
      });
      // The client's own line splitter, which also finds an error the server writes mid-stream.
      const { ResultSet } = await import('@clickhouse/client');
      const lines = ResultSet.instance({
        stream: result.stream,
        format: engineFormat,
        query_id: queryId,
        response_headers: result.response_headers,
        log_error: () => undefined,
      }).stream<unknown>();
      try {
        for await (const batch of lines) yield Buffer.from((batch as Row[]).map((row) => `${row.text}\n`).join(''));
      } finally {
        // Leaving early drops the request: the server stops a read-only query whose client went away.
        lines.destroy();
      }
    },
    async stop() {
      await killUntilFound(async () => {
        const killed = await client.query({ query: `KILL QUERY WHERE query_id = '${queryId}' ASYNC`, format: 'JSONEachRow' });
        return (await killed.json()).length > 0;
      });
    },
    async close() {},
  };
}
