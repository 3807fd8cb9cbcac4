/**
 * The SQL gate's decision on the engine's own parse, without the engine: the trees are the embedded
 * engine's `EXPLAIN AST` of each statement, captured by test/support/capture-sql-gate-asts.mjs (run
 * it again after an engine upgrade). Fast enough for StrykerJS to run per mutant; the integration
 * test warehouse-read-only-query.test.ts runs the same gate on the live engine.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QueryRefusedError } from '../../src/warehouse/query-errors.js';
import { readExplainAst } from '../../src/warehouse/sql-ast.js';
import { judgeStatement, type GateCatalog } from '../../src/warehouse/sql-gate.js';
import { isDeniedScalarFunction } from '../../src/warehouse/sql-gate-policy.js';

const trees = JSON.parse(readFileSync(new URL('../support/sql-gate-asts.json', import.meta.url), 'utf8')) as Record<
  string,
  { rendering: string; ast: string[] }
>;

const catalog: GateCatalog = {
  database: 'mintpipe',
  ownTables: new Set(['visitors', 'runs']),
  allTables: new Set(['mintpipe.visitors', 'mintpipe.runs', 'system.one', 'system.numbers', 'system.tables', 'system.processes']),
  tableFunctions: new Set(['numbers', 'generateSeries', 'values', 'zeros', 'file', 'url', 's3', 'format']),
  userFunctions: new Set(['my_udf']),
  formats: new Set(['JSON', 'CSV', 'TabSeparated']),
};

function judge(sql: string): string {
  const tree = trees[sql];
  if (!tree) throw new Error(`no captured tree for ${sql}: add it to test/support/capture-sql-gate-asts.mjs and run it`);
  return judgeStatement(readExplainAst(tree.ast), tree.rendering, catalog).statement;
}

function refusal(sql: string): string {
  try {
    judge(sql);
  } catch (err) {
    expect(err).toBeInstanceOf(QueryRefusedError);
    return (err as Error).message;
  }
  throw new Error(`${sql} was accepted`);
}

const NOT_A_STATEMENT = 'statements are not allowed (only SELECT (with WITH, UNION…), SHOW TABLES/DATABASES/COLUMNS/CREATE/FUNCTIONS, DESCRIBE, or EXPLAIN of a SELECT)';
const TABLES = "only mintpipe's tables and views, and system.one, system.numbers, system.tables, system.columns, system.databases, system.functions, system.parts, system.data_type_families";
const TABLE_FUNCTIONS = 'only numbers, numbers_mt, values, generateSeries, generate_series';

describe('the SQL gate, on the engine parse', () => {
  it.each([
    ['SELECT 1', 'SELECT'],
    ['SELECT * FROM visitors', 'SELECT'],
    ['SELECT * FROM mintpipe.visitors', 'SELECT'],
    ['SELECT * FROM system.one', 'SELECT'],
    ['SELECT * FROM numbers(3)', 'SELECT'],
    ['SELECT * FROM generateSeries(1, 3)', 'SELECT'],
    ["SELECT * FROM values('a UInt8', 1)", 'SELECT'],
    ['WITH t AS (SELECT 1) SELECT * FROM t', 'SELECT'],
    ['SELECT * FROM visitors AS a JOIN mintpipe.runs AS b ON a.d = b.d', 'SELECT'],
    ['SELECT 1 WHERE 1 IN (SELECT 1)', 'SELECT'],
    ['SELECT number FROM numbers(3) WHERE number IN (SELECT number FROM system.numbers LIMIT 2)', 'SELECT'],
    ['SELECT 1 IN mintpipe.visitors', 'SELECT'],
    ['SELECT in(1, mintpipe.visitors)', 'SELECT'],
    ['SELECT 1 IN visitors', 'SELECT'],
    ['SELECT 1 IN (system.one)', 'SELECT'],
    ['SELECT mintpipe.visitors.n FROM mintpipe.visitors', 'SELECT'],
    // A name that is no table the engine has is a column path, not a table.
    ['SELECT system.processes.x FROM visitors', 'SELECT'],
    // Only the right side of IN names a table.
    ['SELECT mintpipe.visitors.n IN (1, 2) FROM mintpipe.visitors', 'SELECT'],
    ["SELECT format('{} {}', 'a', 'b')", 'SELECT'],
    ['SELECT has([1], 1)', 'SELECT'],
    ['EXPLAIN SELECT 1', 'EXPLAIN'],
    ['EXPLAIN SYNTAX SELECT 1', 'EXPLAIN'],
    ['EXPLAIN AST SELECT 1', 'EXPLAIN'],
    ['DESCRIBE visitors', 'DESCRIBE'],
    ['DESCRIBE (SELECT 1)', 'DESCRIBE'],
    ['SHOW TABLES', 'SHOW TABLES'],
    ['SHOW FULL TABLES', 'SHOW TABLES'],
    ['SHOW TABLES FROM mintpipe', 'SHOW TABLES'],
    ['SHOW DATABASES', 'SHOW TABLES'],
    ['SHOW COLUMNS FROM visitors', 'SHOW COLUMNS'],
    ['SHOW EXTENDED FULL COLUMNS FROM visitors', 'SHOW COLUMNS'],
    ['SHOW CREATE TABLE visitors', 'SHOW CREATE TABLE'],
    ['SHOW CREATE TABLE mintpipe.visitors', 'SHOW CREATE TABLE'],
    ['SHOW CREATE VIEW visitors', 'SHOW CREATE VIEW'],
    ['SHOW CREATE VIEW mintpipe.visitors', 'SHOW CREATE VIEW'],
    ['SHOW FUNCTIONS', 'SHOW FUNCTIONS'],
  ])('accepts %s as %s', (sql, statement) => {
    expect(judge(sql)).toBe(statement);
  });

  it.each([
    ['DROP TABLE visitors', `query: DROP ${NOT_A_STATEMENT}`],
    ['INSERT INTO visitors VALUES (1)', `query: INSERT ${NOT_A_STATEMENT}`],
    ['SYSTEM FLUSH LOGS', `query: SYSTEM FLUSH ${NOT_A_STATEMENT}`],
    ["SHOW SETTINGS LIKE 'x'", `query: SHOW SETTINGS ${NOT_A_STATEMENT}`],
    ['SHOW DICTIONARIES', `query: SHOW DICTIONARIES ${NOT_A_STATEMENT}`],
    ['SHOW INDEXES FROM visitors', `query: SHOW INDEXES ${NOT_A_STATEMENT}`],
    ['EXPLAIN AST DROP TABLE visitors', 'query: EXPLAIN is allowed only of a SELECT'],
    ['SELECT 1 SETTINGS readonly = 0', 'query: a SETTINGS clause is not allowed (limits come from --timeout and --max-rows)'],
    ['SELECT * FROM (SELECT 1 SETTINGS readonly = 0)', 'query: a SETTINGS clause is not allowed (limits come from --timeout and --max-rows)'],
    ['SELECT 1 SETTINGS max_threads = 1 FORMAT JSON', 'query: a FORMAT clause is not allowed (choose the output with --format)'],
    ["SELECT 1 INTO OUTFILE '/tmp/x'", 'query: INTO OUTFILE is not allowed (the result goes to standard output)'],
    ["SELECT 1 INTO OUTFILE '/tmp/x' FORMAT CSV", 'query: INTO OUTFILE is not allowed (the result goes to standard output)'],
    ["SHOW TABLES INTO OUTFILE '/tmp/x'", 'query: INTO OUTFILE is not allowed (the result goes to standard output)'],
    ["DESCRIBE visitors INTO OUTFILE '/tmp/x'", 'query: INTO OUTFILE is not allowed (the result goes to standard output)'],
    ["EXPLAIN SELECT 1 INTO OUTFILE '/tmp/x'", 'query: INTO OUTFILE is not allowed (the result goes to standard output)'],
    ["SHOW CREATE TABLE visitors INTO OUTFILE '/tmp/x'", 'query: INTO OUTFILE is not allowed (the result goes to standard output)'],
    ["DESCRIBE visitors FORMAT JSON", 'query: a FORMAT clause is not allowed (choose the output with --format)'],
    ["EXPLAIN SELECT 1 FORMAT JSON", 'query: a FORMAT clause is not allowed (choose the output with --format)'],
    ["SHOW CREATE TABLE visitors FORMAT JSON", 'query: a FORMAT clause is not allowed (choose the output with --format)'],
    ["SHOW TABLES SETTINGS max_threads = 1", 'query: a SETTINGS clause is not allowed (limits come from --timeout and --max-rows)'],
    ["DESCRIBE visitors SETTINGS max_threads = 1", 'query: a SETTINGS clause is not allowed (limits come from --timeout and --max-rows)'],
    ['SELECT 1 FORMAT JSON', 'query: a FORMAT clause is not allowed (choose the output with --format)'],
    ['SHOW TABLES FORMAT JSON', 'query: a FORMAT clause is not allowed (choose the output with --format)'],
    ['SHOW TABLES FROM JSON', 'query: a FORMAT clause is not allowed (choose the output with --format)'],
    ['SELECT * FROM system.processes', `query: table system.processes is not allowed (${TABLES})`],
    ['SELECT * FROM mintpipe.nope', `query: table mintpipe.nope is not allowed (${TABLES})`],
    ['DESCRIBE TABLE system.processes', `query: table system.processes is not allowed (${TABLES})`],
    ['SHOW CREATE TABLE system.processes', `query: table system.processes is not allowed (${TABLES})`],
    ['SHOW CREATE TABLE nope.visitors', `query: table nope.visitors is not allowed (${TABLES})`],
    ['SELECT * FROM system.tables AS t JOIN system.processes AS p ON 1', `query: table system.processes is not allowed (${TABLES})`],
    ['SELECT 1 IN system.processes', `query: table system.processes is not allowed (${TABLES})`],
    ['SELECT 1 NOT IN system.processes', `query: table system.processes is not allowed (${TABLES})`],
    ['SELECT notIn(1, system.processes)', `query: table system.processes is not allowed (${TABLES})`],
    ['SELECT 1 IN mintpipe.nope', `query: table mintpipe.nope is not allowed (${TABLES})`],
    ['SELECT 1 NOT IN mintpipe.nope', `query: table mintpipe.nope is not allowed (${TABLES})`],
    ['SELECT 1 GLOBAL IN mintpipe.nope', `query: table mintpipe.nope is not allowed (${TABLES})`],
    ['SELECT 1 GLOBAL NOT IN mintpipe.nope', `query: table mintpipe.nope is not allowed (${TABLES})`],
    ['SELECT nullIn(1, mintpipe.nope)', `query: table mintpipe.nope is not allowed (${TABLES})`],
    ['SELECT notNullIn(1, mintpipe.nope)', `query: table mintpipe.nope is not allowed (${TABLES})`],
    ['SELECT globalNullIn(1, mintpipe.nope)', `query: table mintpipe.nope is not allowed (${TABLES})`],
    ['SELECT globalNotNullIn(1, mintpipe.nope)', `query: table mintpipe.nope is not allowed (${TABLES})`],
    ['SHOW CREATE VIEW system.processes', `query: table system.processes is not allowed (${TABLES})`],
    ['SELECT tuple(1, system.processes)', `query: table system.processes is not allowed (${TABLES})`],
    ["SELECT * FROM file('/etc/passwd', 'LineAsString')", `query: table function file() is not allowed (${TABLE_FUNCTIONS})`],
    ['SELECT * FROM zeros(3)', `query: table function zeros() is not allowed (${TABLE_FUNCTIONS})`],
    ["EXPLAIN PLAN SELECT * FROM url('http://127.0.0.1/')", `query: table function url() is not allowed (${TABLE_FUNCTIONS})`],
    ["SELECT 1 UNION ALL SELECT * FROM s3('http://x/y')", `query: table function s3() is not allowed (${TABLE_FUNCTIONS})`],
    ["SELECT 1 IN url('http://x/', 'CSV', 'a UInt8')", `query: table function url() is not allowed (${TABLE_FUNCTIONS})`],
    ["SELECT url('http://x/')", `query: table function url() is not allowed (${TABLE_FUNCTIONS})`],
    ['SELECT zeros(1)', `query: table function zeros() is not allowed (${TABLE_FUNCTIONS})`],
    ["SELECT file('/etc/passwd')", 'query: function file() is not allowed (it reads outside the warehouse)'],
    ["SELECT dictGet('d', 'a', 1)", 'query: function dictGet() is not allowed (it reads outside the warehouse)'],
    ['SELECT filesystemAvailable()', 'query: function filesystemAvailable() is not allowed (it reads outside the warehouse)'],
    ["SELECT getMacro('x')", 'query: function getMacro() is not allowed (it reads outside the warehouse)'],
    ['SELECT my_udf(1)', 'query: function my_udf() is not allowed (user-defined)'],
  ])('refuses %s', (sql, message) => {
    expect(refusal(sql)).toBe(message);
  });

  it('names a refused statement by its first keyword, or by its node type when the rendering starts otherwise', () => {
    const root = readExplainAst(['AlterQuery (children 0)']);
    expect(() => judgeStatement(root, 'alter table t', catalog)).toThrow(`query: ALTER ${NOT_A_STATEMENT}`);
    expect(() => judgeStatement(root, '(ALTER TABLE t)', catalog)).toThrow(`query: AlterQuery ${NOT_A_STATEMENT}`);
    expect(() => judgeStatement(root, 'ALTER(t)', catalog)).toThrow(`query: AlterQuery ${NOT_A_STATEMENT}`);
    expect(() => judgeStatement(root, '', catalog)).toThrow(`query: AlterQuery ${NOT_A_STATEMENT}`);
    expect(() => judgeStatement(readExplainAst(['SystemQuery']), 'SYSTEM', catalog)).toThrow(`query: SYSTEM ${NOT_A_STATEMENT}`);
  });

  it('refuses a clause it does not know after a statement, naming it', () => {
    const root = readExplainAst(['DescribeQuery (children 2)', ' TableExpression', ' Asterisk']);
    expect(() => judgeStatement(root, 'DESCRIBE TABLE t', catalog)).toThrow('query: DescribeQuery with Asterisk is not allowed');
    const first = readExplainAst(['SelectWithUnionQuery (children 1)', ' Asterisk']);
    expect(() => judgeStatement(first, 'SELECT', catalog)).toThrow('query: SelectWithUnionQuery with Asterisk is not allowed');
    const explainFirst = readExplainAst(['Explain EXPLAIN (children 2)', ' Literal 1', ' SelectWithUnionQuery (children 1)', '  ExpressionList']);
    expect(() => judgeStatement(explainFirst, 'EXPLAIN', catalog)).toThrow(QueryRefusedError);
    const describeSecond = readExplainAst(['DescribeQuery (children 2)', ' Identifier JSON', ' TableExpression']);
    expect(() => judgeStatement(describeSecond, 'DESCRIBE', catalog)).toThrow(QueryRefusedError);
    const showTablesSecond = readExplainAst(['ShowTables (children 2)', ' Literal 1', ' Identifier mintpipe']);
    expect(() => judgeStatement(showTablesSecond, 'SHOW TABLES', catalog)).toThrow(QueryRefusedError);
    const showCreateExtra = readExplainAst(['ShowCreateTableQuery  visitors (children 2)', ' Identifier visitors', ' Identifier JSON']);
    expect(() => judgeStatement(showCreateExtra, 'SHOW CREATE TABLE visitors', catalog)).toThrow('query: a FORMAT clause is not allowed (choose the output with --format)');
    const showViewExtra = readExplainAst(['ShowCreateViewQuery  visitors (children 2)', ' Identifier visitors', ' Identifier JSON']);
    expect(() => judgeStatement(showViewExtra, 'SHOW CREATE VIEW visitors', catalog)).toThrow('query: a FORMAT clause is not allowed (choose the output with --format)');
  });

  it('refuses every dictionary, Join, model and server-setting function by name, in any case', () => {
    for (const name of ['file', 'FILE', 'joinGet', 'joinGetOrNull', 'catboostEvaluate', 'getServerSetting', 'getMacro', 'dictHas', 'naiveBayesClassifier', 'filesystemFree']) {
      expect(isDeniedScalarFunction(name), name).toBe(true);
    }
    for (const name of ['count', 'has', 'format', 'profile', 'getSetting', 'indexOf']) expect(isDeniedScalarFunction(name), name).toBe(false);
  });
});
