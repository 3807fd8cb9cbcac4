/**
 * What read-only SQL may use. Statement kinds, table functions and tables are allowlists: anything
 * not named here is refused, including whatever a future engine version adds. Scalar functions are
 * too many to list; the few that reach outside the engine's own data are refused by name (and any
 * user-defined function by origin), and the engine itself runs the query with `readonly=1`.
 */

/**
 * Table functions that only generate rows from their arguments. (`zeros` would qualify, but the
 * engine refuses it under readonly=1, so it is not offered.)
 */
export const ALLOWED_TABLE_FUNCTIONS: ReadonlySet<string> = new Set([
  'numbers',
  'numbers_mt',
  'values',
  'generateSeries',
  'generate_series',
]);

/** `system` tables that describe the warehouse and the engine's SQL, nothing of the machine. */
export const ALLOWED_SYSTEM_TABLES: ReadonlySet<string> = new Set([
  'system.one',
  'system.numbers',
  'system.tables',
  'system.columns',
  'system.databases',
  'system.functions',
  'system.parts',
  'system.data_type_families',
]);

/**
 * Statement kinds, as the engine names the root of its parse. SHOW TABLES and SHOW DATABASES share
 * a node with SHOW SETTINGS, SHOW DICTIONARIES and others, and SHOW COLUMNS with SHOW INDEXES, so
 * for those the engine's own one-line rendering tells which one it is.
 */
export const ALLOWED_STATEMENTS: ReadonlyMap<string, { label: string; rendering?: RegExp }> = new Map([
  ['SelectWithUnionQuery', { label: 'SELECT' }],
  ['Explain', { label: 'EXPLAIN' }],
  ['DescribeQuery', { label: 'DESCRIBE' }],
  ['ShowTables', { label: 'SHOW TABLES', rendering: /^SHOW (?:FULL )?(?:TEMPORARY )?(?:TABLES|DATABASES)(?: |$)/ }],
  ['ShowColumns', { label: 'SHOW COLUMNS', rendering: /^SHOW (?:EXTENDED )?(?:FULL )?COLUMNS / }],
  ['ShowCreateTableQuery', { label: 'SHOW CREATE TABLE' }],
  ['ShowCreateViewQuery', { label: 'SHOW CREATE VIEW' }],
  ['ShowFunctions', { label: 'SHOW FUNCTIONS' }],
]);

/** Said in refusals: what is accepted. */
export const ALLOWED_STATEMENTS_TEXT = 'SELECT (with WITH, UNION…), SHOW TABLES/DATABASES/COLUMNS/CREATE/FUNCTIONS, DESCRIBE, or EXPLAIN of a SELECT';

/**
 * Scalar functions that read outside the engine's own data: files (`file`), dictionaries (which may
 * read files, URLs or run programs), Join tables by name, model files, server configuration.
 * Compared in lower case; `dict…` covers every dictGet/dictHas variant.
 */
const DENIED_SCALAR_FUNCTIONS = new Set(['file', 'joinget', 'joingetornull', 'catboostevaluate', 'getserversetting', 'getmacro']);
const DENIED_SCALAR_PREFIXES = ['dict', 'naivebayesclassifier', 'filesystem'];

export function isDeniedScalarFunction(name: string): boolean {
  const lower = name.toLowerCase();
  return DENIED_SCALAR_FUNCTIONS.has(lower) || DENIED_SCALAR_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/**
 * Table functions that are also ordinary functions with a harmless scalar form; outside a FROM
 * clause they are the scalar (`format('{} {}', a, b)`). The scalar `file()` is not here: it reads files.
 */
export const SCALAR_NAMESAKES: ReadonlySet<string> = new Set(['format']);

/** Functions whose second argument names a table (`x IN db.t`). */
export const MEMBERSHIP_FUNCTIONS: ReadonlySet<string> = new Set([
  'in',
  'notIn',
  'globalIn',
  'globalNotIn',
  'nullIn',
  'notNullIn',
  'globalNullIn',
  'globalNotNullIn',
]);
