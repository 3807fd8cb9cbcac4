// Regenerates test/support/sql-gate-asts.json: the embedded engine's one-line rendering and
// `EXPLAIN AST` lines for each statement below, as src/warehouse/read-only-query.ts obtains them.
// The unit tests of the SQL gate (test/warehouse/mutation-sql-gate.unit.test.ts) judge these trees without
// starting the engine, so that StrykerJS can run them per mutant in milliseconds. Run after an
// engine upgrade: node test/support/capture-sql-gate-asts.mjs
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';

const STATEMENTS = [
  "SELECT 1",
  "SELECT * FROM visitors",
  "SELECT * FROM mintpipe.visitors",
  "SELECT * FROM system.one",
  "SELECT * FROM system.processes",
  "SELECT * FROM numbers(3)",
  "SELECT * FROM file('/etc/passwd', 'LineAsString')",
  "SELECT 1 SETTINGS readonly = 0",
  "SELECT * FROM (SELECT 1 SETTINGS readonly = 0)",
  "SELECT 1 INTO OUTFILE '/tmp/x'",
  "SELECT 1 FORMAT JSON",
  "EXPLAIN SELECT 1",
  "EXPLAIN PLAN SELECT * FROM url('http://127.0.0.1/')",
  "DESCRIBE visitors",
  "DESCRIBE TABLE system.processes",
  "SHOW TABLES",
  "SHOW TABLES FROM system",
  "SHOW DATABASES",
  "SHOW SETTINGS LIKE 'x'",
  "SHOW COLUMNS FROM visitors",
  "SHOW INDEXES FROM visitors",
  "SHOW CREATE TABLE visitors",
  "SHOW CREATE TABLE mintpipe.visitors",
  "SHOW CREATE TABLE system.processes",
  "SHOW CREATE VIEW mintpipe.visitors",
  "SHOW FUNCTIONS",
  "DROP TABLE visitors",
  "SYSTEM FLUSH LOGS",
  "INSERT INTO visitors VALUES (1)",
  "SELECT 1 IN mintpipe.visitors",
  "SELECT 1 IN system.processes",
  "SELECT 1 WHERE 1 IN (SELECT 1)",
  "SELECT system.processes.x FROM visitors",
  "SELECT file('/etc/passwd')",
  "SELECT dictGet('d', 'a', 1)",
  "SELECT 1 IN url('http://x/', 'CSV', 'a UInt8')",
  "SELECT format('{} {}', 'a', 'b')",
  "SELECT number FROM numbers(3) WHERE number IN (SELECT number FROM system.numbers LIMIT 2)",
  "WITH t AS (SELECT 1) SELECT * FROM t",
  "SELECT * FROM visitors AS a JOIN mintpipe.runs AS b ON a.d = b.d",
  "SHOW TABLES FORMAT JSON",
  "SELECT 1 UNION ALL SELECT * FROM s3('http://x/y')",
  "SELECT notIn(1, system.processes)",
  "SELECT in(1, mintpipe.visitors)",
  "SHOW TABLES FROM mintpipe",
  "EXPLAIN AST SELECT 1",
  "SHOW FULL TABLES",
  "SHOW DICTIONARIES",
  "SHOW EXTENDED FULL COLUMNS FROM visitors",
  "DESCRIBE (SELECT 1)",
  "SELECT 1 SETTINGS max_threads = 1 FORMAT JSON",
  "SELECT * FROM generateSeries(1, 3)",
  "SELECT * FROM zeros(3)",
  "SELECT * FROM system.tables AS t JOIN system.processes AS p ON 1",
  "SELECT my_udf(1)",
  "SELECT filesystemAvailable()",
  "SELECT getMacro('x')",
  "SELECT url('http://x/')",
  "SELECT zeros(1)",
  "SELECT 1 IN visitors",
  "SELECT 1 NOT IN system.processes",
  "SELECT 1 IN mintpipe.nope",
  "SELECT has([1], 1)",
  "SELECT mintpipe.visitors.n FROM mintpipe.visitors",
  "SELECT * FROM values('a UInt8', 1)",
  "SELECT 1 IN (system.one)",
  "SELECT tuple(1, system.processes)",
  "SHOW TABLES FROM JSON",
  "SHOW COLUMNS FROM system.processes",
  "EXPLAIN SYNTAX SELECT 1",
  "SHOW CREATE TABLE nope.visitors",
  "SELECT * FROM mintpipe.nope",
  "SHOW CREATE VIEW visitors",
  "SELECT 1 INTO OUTFILE '/tmp/x' FORMAT CSV",
  "EXPLAIN AST DROP TABLE visitors",
  "SHOW CREATE VIEW system.processes",
  "SELECT mintpipe.visitors.n IN (1, 2) FROM mintpipe.visitors",
  "SELECT 1 NOT IN mintpipe.nope",
  "SELECT 1 GLOBAL IN mintpipe.nope",
  "SELECT 1 GLOBAL NOT IN mintpipe.nope",
  "SELECT nullIn(1, mintpipe.nope)",
  "SELECT notNullIn(1, mintpipe.nope)",
  "SELECT globalNullIn(1, mintpipe.nope)",
  "SELECT globalNotNullIn(1, mintpipe.nope)",
  "SHOW TABLES INTO OUTFILE '/tmp/x'",
  "DESCRIBE visitors INTO OUTFILE '/tmp/x'",
  "EXPLAIN SELECT 1 INTO OUTFILE '/tmp/x'",
  "SHOW CREATE TABLE visitors INTO OUTFILE '/tmp/x'",
  "DESCRIBE visitors FORMAT JSON",
  "EXPLAIN SELECT 1 FORMAT JSON",
  "SHOW CREATE TABLE visitors FORMAT JSON",
  "SHOW TABLES SETTINGS max_threads = 1",
  "DESCRIBE visitors SETTINGS max_threads = 1",
];

const dir = mkdtempSync(join(tmpdir(), 'mintpipe-ast-capture-'));
const session = new Session(join(dir, 'db'));
try {
  session.query('CREATE DATABASE mintpipe');
  session.query('CREATE TABLE mintpipe.visitors (d Date, n UInt64) ENGINE = MergeTree ORDER BY d');
  session.query('CREATE TABLE mintpipe.runs (d Date) ENGINE = MergeTree ORDER BY d');
  const quote = (text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const rows = (sql) => JSON.parse(session.query(sql, 'JSONCompact')).data;
  const trees = {};
  for (const sql of STATEMENTS) {
    const rendering = String(rows(`SELECT formatQuerySingleLine(${quote(sql)})`)[0][0]);
    trees[sql] = { rendering, ast: rows(`EXPLAIN AST ${rendering}`).map((row) => String(row[0])) };
  }
  writeFileSync(new URL('./sql-gate-asts.json', import.meta.url), `${JSON.stringify(trees, null, 1)}\n`);
} finally {
  session.close();
  rmSync(dir, { recursive: true, force: true });
}
