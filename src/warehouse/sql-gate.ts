/**
 * The decision on user SQL, made on the engine's own parse (never on the SQL text): the tree from
 * `EXPLAIN AST` of the engine's one-line rendering of the statement. Exactly one SELECT-like
 * statement; no SETTINGS, INTO OUTFILE or FORMAT anywhere; table functions, tables and statement
 * kinds from the allowlists in sql-gate-policy.ts.
 */
import type { AstNode } from './sql-ast.js';
import { QueryRefusedError } from './query-errors.js';
import {
  ALLOWED_STATEMENTS,
  ALLOWED_STATEMENTS_TEXT,
  ALLOWED_SYSTEM_TABLES,
  ALLOWED_TABLE_FUNCTIONS,
  isDeniedScalarFunction,
  MEMBERSHIP_FUNCTIONS,
  SCALAR_NAMESAKES,
} from './sql-gate-policy.js';

/** What the engine knows at the time of the query (read from it, so new tables are covered). */
export interface GateCatalog {
  /** mintpipe's database. */
  database: string;
  /** Tables and views in mintpipe's database. */
  ownTables: ReadonlySet<string>;
  /** Every `database.table` the engine has, to recognise a table wherever a name appears. */
  allTables: ReadonlySet<string>;
  /** Names of the engine's table functions. */
  tableFunctions: ReadonlySet<string>;
  /** Functions that are not the engine's own (SQL or executable user-defined functions). */
  userFunctions: ReadonlySet<string>;
  /** Output format names (a trailing `FORMAT x` prints as a bare name). */
  formats: ReadonlySet<string>;
}

export interface GateVerdict {
  /** e.g. `SELECT`, `SHOW TABLES`, `EXPLAIN`. */
  statement: string;
}

function refuse(what: string): never {
  throw new QueryRefusedError(`query: ${what}`);
}

/**
 * Judges one statement. `rendering` is the engine's one-line rendering the tree was made from
 * (used only to tell apart SHOW variants that share a node type).
 */
export function judgeStatement(root: AstNode, rendering: string, catalog: GateCatalog): GateVerdict {
  const allowed = ALLOWED_STATEMENTS.get(root.type);
  if (!allowed || (allowed.rendering && !allowed.rendering.test(rendering))) {
    refuse(`${statementName(root, rendering)} statements are not allowed (only ${ALLOWED_STATEMENTS_TEXT})`);
  }
  if (root.type === 'Explain' && !root.children.some((child) => child.type === 'SelectWithUnionQuery')) {
    refuse('EXPLAIN is allowed only of a SELECT');
  }
  checkStatementChildren(root, catalog);
  if (root.type === 'ShowCreateTableQuery' || root.type === 'ShowCreateViewQuery') checkShowCreate(root, catalog);
  walk(root, undefined, catalog);
  return { statement: allowed.label };
}

/** The words a refusal names a statement by: its first keywords, as the engine renders them. */
function statementName(root: AstNode, rendering: string): string {
  const words = rendering.split(' ');
  const first = words[0]?.toUpperCase() ?? root.type;
  if (first === 'SHOW' || first === 'SYSTEM' || first === 'EXPLAIN') return `${first} ${words[1] ?? ''}`.trim();
  return /^[A-Z]+$/.test(first) ? first : root.type;
}

/**
 * The clauses a statement can carry after its query: INTO OUTFILE prints as a string literal child,
 * FORMAT as a bare name, SETTINGS as `Set`.
 */
function checkStatementChildren(root: AstNode, catalog: GateCatalog): void {
  const expected: Record<string, (child: AstNode, index: number) => boolean> = {
    SelectWithUnionQuery: (child, i) => i === 0 && child.type === 'ExpressionList',
    Explain: (child, i) => i === 0 && child.type === 'SelectWithUnionQuery',
    DescribeQuery: (child, i) => i === 0 && child.type === 'TableExpression',
    // SHOW TABLES FROM db: the database, as a name that is not an output format.
    ShowTables: (child, i) => i === 0 && child.type === 'Identifier' && !catalog.formats.has(child.text),
    ShowCreateTableQuery: (child, i) => child.type === 'Identifier' && i < showCreateNameCount(root),
    ShowCreateViewQuery: (child, i) => child.type === 'Identifier' && i < showCreateNameCount(root),
  };
  const fits = expected[root.type] ?? (() => false);
  root.children.forEach((child, i) => {
    if (fits(child, i)) return;
    if (child.type === 'Literal') refuse('INTO OUTFILE is not allowed (the result goes to standard output)');
    if (child.type === 'Set') refuse('a SETTINGS clause is not allowed (limits come from --timeout and --max-rows)');
    if (child.type === 'Identifier') refuse('a FORMAT clause is not allowed (choose the output with --format)');
    refuse(`${root.type} with ${child.type} is not allowed`);
  });
}

/** `ShowCreateTableQuery db t` names two identifiers; `ShowCreateTableQuery  t` (no database) one. */
function showCreateNameCount(node: AstNode): number {
  return node.text.startsWith(' ') ? 1 : 2;
}

function checkShowCreate(node: AstNode, catalog: GateCatalog): void {
  const names = node.children.slice(0, showCreateNameCount(node)).map((child) => child.text);
  checkTableName(names.join('.'), catalog);
}

function walk(node: AstNode, parent: AstNode | undefined, catalog: GateCatalog): void {
  switch (node.type) {
    case 'Set':
      refuse('a SETTINGS clause is not allowed (limits come from --timeout and --max-rows)');
      break;
    case 'SelectWithUnionQuery':
      if (parent) checkStatementChildren(node, catalog);
      break;
    case 'TableIdentifier':
      checkTableName(node.text, catalog);
      break;
    case 'Identifier':
      checkIdentifier(node, parent, catalog);
      break;
    case 'Function':
      checkFunction(node, parent, catalog);
      break;
  }
  for (const child of node.children) walk(child, node, catalog);
}

/**
 * A table named in FROM, JOIN, DESCRIBE or SHOW CREATE. A name without a database resolves in
 * mintpipe's database (or to a WITH name of the query); a qualified one must be one of mintpipe's
 * tables or an allowed `system` table.
 */
function checkTableName(name: string, catalog: GateCatalog): void {
  if (!name.includes('.')) return;
  if (ALLOWED_SYSTEM_TABLES.has(name)) return;
  const [database, ...rest] = name.split('.');
  if (database === catalog.database && catalog.ownTables.has(rest.join('.'))) return;
  refuse(`table ${name} is not allowed (only mintpipe's tables and views, and ${[...ALLOWED_SYSTEM_TABLES].join(', ')})`);
}

/**
 * A qualified name used as a value. On the right of IN it is read as a table, so it is held to
 * the table rules; anywhere else a name that is a table the engine has is refused unless allowed.
 */
function checkIdentifier(node: AstNode, parent: AstNode | undefined, catalog: GateCatalog): void {
  if (!node.text.includes('.')) return;
  const operands = parent?.type === 'ExpressionList' ? parent : undefined;
  const inMembership = operands !== undefined && operands.children[1] === node && membershipOwner.get(operands) === true;
  if (inMembership || catalog.allTables.has(node.text)) checkTableName(node.text, catalog);
}

/** ExpressionLists that hold the operands of an IN-like function (filled while walking). */
const membershipOwner = new WeakMap<AstNode, boolean>();

function checkFunction(node: AstNode, parent: AstNode | undefined, catalog: GateCatalog): void {
  const name = node.text;
  if (MEMBERSHIP_FUNCTIONS.has(name) && node.children[0]) membershipOwner.set(node.children[0], true);
  if (parent?.type === 'TableExpression') {
    if (!ALLOWED_TABLE_FUNCTIONS.has(name)) refuseTableFunction(name);
    return;
  }
  if (isDeniedScalarFunction(name)) refuse(`function ${name}() is not allowed (it reads outside the warehouse)`);
  if (catalog.userFunctions.has(name)) refuse(`function ${name}() is not allowed (user-defined)`);
  // Elsewhere (`x IN url(…)`) a table function's name may still be read as one.
  if (catalog.tableFunctions.has(name) && !ALLOWED_TABLE_FUNCTIONS.has(name) && !SCALAR_NAMESAKES.has(name)) refuseTableFunction(name);
}

function refuseTableFunction(name: string): never {
  refuse(`table function ${name}() is not allowed (only ${[...ALLOWED_TABLE_FUNCTIONS].join(', ')})`);
}
