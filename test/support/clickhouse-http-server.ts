/**
 * ClickHouse's HTTP interface over the embedded engine, for tests of mintpipe's server path: the
 * parts `@clickhouse/client` uses, every statement executed for real by chDB on one data directory.
 *
 *   node --import tsx test/support/clickhouse-http-server.ts <dataDir> [user:password[:readonly=N] …]
 *
 * prints the port it listens on (127.0.0.1) as one line, and serves until SIGTERM/SIGINT.
 *
 * What it serves as a server does:
 * - `GET /ping` (and `GET /` with no query) → `Ok.\n`.
 * - the query in the `query` URL parameter, the request body, or both (joined by a newline: the
 *   body is an INSERT's data), `database` (refused with UNKNOWN_DATABASE when missing), `query_id`
 *   (a second query with a running id is refused), `session_id` (its own engine session, kept
 *   between requests; one request at a time, as a server locks a session), `default_format` and
 *   `FORMAT` clauses, `param_<name>` bound by the engine's own parameter binding for `{name:Type}`.
 * - every other URL parameter is a setting, applied to the request with `SET` before the
 *   statement (an unknown one is refused with UNKNOWN_SETTING), `readonly` last, so a read-only
 *   request is refused writes (READONLY, 164) as a server refuses them.
 * - server defaults where the engine's differ: 64-bit integers quoted in JSON formats (as servers
 *   have long defaulted to, and mintpipe must read either way), no implicit SELECT, no
 *   introspection functions.
 * - failures: the HTTP status a server gives the code, `X-ClickHouse-Exception-Code` and the
 *   engine's `Code: N. DB::Exception: …` text; successes: `X-ClickHouse-Query-Id`,
 *   `X-ClickHouse-Format`, `X-ClickHouse-Summary`.
 * - `KILL QUERY WHERE query_id = '…'` stops that request's statement (the engine does not know the
 *   HTTP query id: each statement carries a marker in `log_comment`, and the KILL is rewritten to
 *   it), and with `cancel_http_readonly_queries_on_client_close=1` a read-only query whose client
 *   went away is stopped.
 * - credentials: with `user:password` arguments, a request without one of them (Basic auth,
 *   `X-ClickHouse-User`/`-Key`, or `user`/`password` parameters) fails with AUTHENTICATION_FAILED;
 *   `user:password:readonly=N` gives that user a profile with `readonly` N, in force before the
 *   request's own settings (so, as on a server, readonly=1 refuses every setting and readonly=2
 *   refuses a change of `readonly`).
 *
 * What it does not emulate: users' grants, profiles and quotas (any valid user may do anything);
 * replication, clusters and distributed (`ON CLUSTER`) DDL; compression (a request body may be
 * gzip, answers are never compressed, `enable_http_compression` is ignored); multipart bodies
 * (`use_multipart_params`); written rows in the summary (always 0); progress headers; session
 * timeouts (sessions live until the server stops); URL settings of a session request stay in
 * force on that session (a server applies them to the one request); a composite parameter
 * (Array, Map, Tuple) whose text has a backslash is refused (the engine's binding escapes it).
 * Several statements in one request run (a server refuses them with code 62).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { Session, type ChdbResult } from 'chdb';

/** URL parameters that are not settings. */
const NOT_SETTINGS = new Set([
  'query', 'database', 'query_id', 'session_id', 'session_timeout', 'session_check', 'default_format',
  'user', 'password', 'quota_key', 'buffer_size', 'wait_end_of_query', 'compress', 'decompress', 'role',
  'enable_http_compression', 'cancel_http_readonly_queries_on_client_close', 'stacktrace',
]);

/** Settings where clickhouse-local's defaults differ from a server's. */
const SERVER_DEFAULTS = ['SET output_format_json_quote_64bit_integers = 1', 'SET implicit_select = 0', 'SET allow_introspection_functions = 0'];

/** The HTTP status a server answers an exception code with (ClickHouse's exceptionCodeToHTTPStatus, in part). */
function httpStatus(code: number): number {
  if (code === 516 || code === 194) return 401;
  if ([164, 497, 291].includes(code)) return 403;
  if ([60, 81, 83].includes(code)) return 404;
  if ([62, 26, 27, 32, 33, 38, 72, 6, 69, 70, 36, 115, 130, 457, 563].includes(code)) return 400;
  if (code === 373) return 423;
  return 500;
}

class HttpError extends Error {
  constructor(
    readonly code: number,
    readonly name_: string,
    message: string,
  ) {
    super(`Code: ${code}. DB::Exception: ${message}. (${name_})`);
  }
}

interface Running {
  marker: string;
  readonly: boolean;
}

const dataDir = process.argv[2];
if (!dataDir) {
  process.stderr.write('usage: clickhouse-http-server.ts <dataDir> [user:password …]\n');
  process.exit(2);
}
/** name → password and the profile's settings (`readonly=N`). */
const users = new Map(
  process.argv.slice(3).map((spec) => {
    const [name = '', password = '', ...profile] = spec.split(':');
    return [name, { password, profile: profile.map((setting) => `SET ${setting}`) }] as const;
  }),
);
/** Kept open while the server runs, so every per-request session is a cheap second one on the engine. */
const root = new Session(dataDir);
const sessions = new Map<string, { session: Session; busy: boolean }>();
const running = new Map<string, Running>();

function sqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Undoes ClickHouse's escaping of a parameter's text (`\t`, `\'`, `\\`, `\xHH`…). */
function unescapeParam(text: string): string {
  const simple: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '0': '\0', a: '\x07', v: '\v', N: '\\N' };
  return text.replace(/\\(x[0-9A-Fa-f]{2}|.)/gs, (_, c: string) =>
    c.length === 3 ? String.fromCharCode(parseInt(c.slice(1), 16)) : (simple[c] ?? c),
  );
}

/**
 * The values chDB's binding needs so the engine receives each parameter's text as sent: chDB
 * escapes a string value before the engine unescapes it as the declared type, so a scalar's text
 * is unescaped first; a composite's text is read by the engine as a literal, unescaped.
 */
function bindings(sql: string, params: Map<string, string>): Record<string, string> {
  const types = new Map<string, string>();
  for (const m of sql.matchAll(/\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^{}]+?)\s*\}/g)) types.set(m[1]!, m[2]!);
  const bound: Record<string, string> = {};
  for (const [name, text] of params) {
    const composite = /^(Nullable\()?(Array|Map|Tuple)\(/.test(types.get(name) ?? '');
    if (composite && text.includes('\\')) {
      throw new HttpError(456, 'UNKNOWN_QUERY_PARAMETER', `the emulated server cannot bind a composite parameter with a backslash: ${name}`);
    }
    bound[name] = composite ? text : unescapeParam(text);
  }
  return bound;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const encoding = req.headers['content-encoding'];
  if (encoding === 'gzip') return gunzipSync(body).toString('utf8');
  if (encoding && encoding !== 'identity') throw new HttpError(1, 'UNKNOWN_EXCEPTION', `unsupported Content-Encoding: ${encoding}`);
  if (String(req.headers['content-type'] ?? '').startsWith('multipart/')) {
    throw new HttpError(1, 'UNKNOWN_EXCEPTION', 'multipart bodies are not emulated');
  }
  return body.toString('utf8');
}

/** The statements of the request's user's profile. */
function authenticate(req: IncomingMessage, url: URL): string[] {
  if (users.size === 0) return [];
  let user = url.searchParams.get('user') ?? (req.headers['x-clickhouse-user'] as string | undefined);
  let password = url.searchParams.get('password') ?? (req.headers['x-clickhouse-key'] as string | undefined) ?? '';
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    user = decoded.slice(0, decoded.indexOf(':'));
    password = decoded.slice(decoded.indexOf(':') + 1);
  }
  user ??= 'default';
  const known = users.get(user);
  if (known?.password !== password) {
    throw new HttpError(516, 'AUTHENTICATION_FAILED', `${user}: Authentication failed: password is incorrect, or there is no user with such name`);
  }
  return known.profile;
}

/** The SET statements of the request's settings, `readonly` last (after it none could be set). */
function settingStatements(url: URL): { statements: string[]; readonly: boolean } {
  const statements: string[] = [];
  let readonly: string | undefined;
  for (const [name, value] of url.searchParams) {
    if (NOT_SETTINGS.has(name) || name.startsWith('param_')) continue;
    if (name === 'readonly') readonly = value;
    else statements.push(`SET ${name} = ${sqlString(value)}`);
  }
  if (readonly !== undefined) statements.push(`SET readonly = ${sqlString(readonly)}`);
  return { statements, readonly: readonly !== undefined && readonly !== '0' };
}

/** `KILL QUERY WHERE query_id = '…'` in the engine's terms: the marker its statement carries. */
function rewriteKill(statement: string): string {
  const kill = /^\s*KILL\s+QUERY\s+WHERE\s+query_id\s*=\s*'([^']*)'(.*)$/is.exec(statement);
  if (!kill) return statement;
  const marker = running.get(kill[1]!)?.marker ?? `no running query ${randomUUID()}`;
  return `KILL QUERY WHERE Settings['log_comment'] = ${sqlString(marker)}${kill[2]}`;
}

function outputFormat(statement: string, fallback: string): string {
  if (/^\s*INSERT\b/i.test(statement)) return fallback;
  return /\bFORMAT\s+([A-Za-z0-9_]+)\s*;?\s*$/i.exec(statement)?.[1] ?? fallback;
}

/** The session a request runs in: its `session_id`'s, or one of its own (closed after it). */
function sessionFor(url: URL): { session: Session; fresh: boolean; done: () => void } {
  const id = url.searchParams.get('session_id');
  if (!id) {
    const session = new Session(dataDir);
    return { session, fresh: true, done: () => session.close() };
  }
  let entry = sessions.get(id);
  const fresh = entry === undefined;
  if (!entry) {
    entry = { session: new Session(dataDir), busy: false };
    sessions.set(id, entry);
  }
  if (entry.busy) throw new HttpError(373, 'SESSION_IS_LOCKED', `Session ${id} is locked by a concurrent client`);
  entry.busy = true;
  const held = entry;
  return { session: held.session, fresh, done: () => (held.busy = false) };
}

async function execute(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const profile = authenticate(req, url);
  const body = await readBody(req);
  const inUrl = url.searchParams.get('query');
  const statement = rewriteKill(inUrl === null ? body : body === '' ? inUrl : `${inUrl}\n${body}`);
  if (statement.trim() === '') throw new HttpError(62, 'SYNTAX_ERROR', 'Empty query');
  const queryId = url.searchParams.get('query_id') || randomUUID();
  if (running.has(queryId)) throw new HttpError(216, 'QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING', `Query with id = ${queryId} is already running`);
  const marker = `chdb-http:${queryId}`;
  const { statements, readonly } = settingStatements(url);
  const comment = url.searchParams.get('log_comment');
  const params = new Map([...url.searchParams].filter(([name]) => name.startsWith('param_')).map(([name, value]) => [name.slice(6), value]));
  const format = url.searchParams.get('default_format') ?? 'TabSeparated';
  const { session, fresh, done } = sessionFor(url);
  running.set(queryId, { marker: comment ?? marker, readonly });
  const cancelOnClose = readonly && url.searchParams.get('cancel_http_readonly_queries_on_client_close') === '1';
  const onClose = () => {
    if (cancelOnClose && !res.writableEnded) void killMarker(comment ?? marker);
  };
  res.on('close', onClose);
  try {
    const database = url.searchParams.get('database');
    // One engine call: the settings' SETs print nothing, so the output is the statement's.
    // Server defaults and the marker (the server's own), the user's profile, then the request's settings.
    const own = [...(fresh ? SERVER_DEFAULTS : []), ...(comment === null ? [`SET log_comment = ${sqlString(marker)}`] : [])];
    const prefix = [...own, ...profile, ...(database ? [`USE ${database}`] : []), ...statements].map((s) => `${s}; `).join('');
    const sql = `${prefix}${statement}`;
    const result: ChdbResult = params.size > 0 ? await session.queryBindAsync(sql, bindings(statement, params), { format }) : await session.queryAsync(sql, { format });
    const summary = {
      read_rows: String(result.rowsRead),
      read_bytes: String(result.bytesRead),
      written_rows: '0',
      written_bytes: '0',
      total_rows_to_read: '0',
      result_rows: '0',
      result_bytes: '0',
      elapsed_ns: String(Math.round(result.elapsed * 1e9)),
    };
    const used = outputFormat(statement, format);
    res.writeHead(200, {
      'Content-Type': /JSON/i.test(used) ? 'application/json; charset=UTF-8' : 'text/plain; charset=UTF-8',
      'X-ClickHouse-Query-Id': queryId,
      'X-ClickHouse-Format': used,
      'X-ClickHouse-Timezone': 'UTC',
      'X-ClickHouse-Summary': JSON.stringify(summary),
    });
    res.end(Buffer.from(result.bytes()));
  } finally {
    running.delete(queryId);
    res.off('close', onClose);
    done();
  }
}

async function killMarker(marker: string): Promise<void> {
  const killer = new Session(dataDir);
  try {
    await killer.queryAsync(`KILL QUERY WHERE Settings['log_comment'] = ${sqlString(marker)} ASYNC`, { format: 'TSV' });
  } catch {
    // Nothing left to stop.
  } finally {
    killer.close();
  }
}

function fail(res: ServerResponse, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  const code = err instanceof HttpError ? err.code : Number(/^Code: (\d+)\./.exec(message)?.[1] ?? 1);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(httpStatus(code), { 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Exception-Code': String(code) });
  res.end(`${message.trimEnd()}\n`);
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'GET' && (url.pathname === '/ping' || (url.pathname === '/' && !url.searchParams.has('query')))) {
    req.resume();
    res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' });
    res.end('Ok.\n');
    return;
  }
  execute(req, res, url).catch((err: unknown) => fail(res, err));
});

function stop(): void {
  server.close();
  server.closeAllConnections();
  for (const { session } of sessions.values()) session.close();
  root.close();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

server.listen(Number(process.env.CLICKHOUSE_HTTP_PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : ''}\n`);
});
