/**
 * Reads the tree the engine prints for `EXPLAIN AST`: one node per line, indented one space per
 * level, `Type [name] [(alias a)] [(children N)]`. The reader is strict: every node must have
 * exactly the children it declares, at exactly one level deeper, and every line must be used. A
 * quoted name holding a line break (which the engine prints raw) therefore cannot add a node
 * without breaking the counts; such a tree is refused, never guessed at.
 */

export interface AstNode {
  /** `SelectQuery`, `Function`, `TableIdentifier`, `Set`… */
  type: string;
  /** What follows the type on its line: a function's or table's name, an EXPLAIN kind. */
  text: string;
  alias?: string;
  children: AstNode[];
}

export class AstReadError extends Error {
  override name = 'AstReadError';
}

const HEADER = /^(.*?)(?: \(children (\d+)\))?$/;
const ALIAS = /^(.*) \(alias (.*)\)$/;

export function readExplainAst(lines: readonly string[]): AstNode {
  let next = 0;
  const read = (depth: number): AstNode => {
    const line = lines[next];
    if (line === undefined) throw new AstReadError('the tree ends early');
    const indent = line.length - line.trimStart().length;
    if (indent !== depth || line.slice(0, indent).trim() !== '') {
      throw new AstReadError(`line ${next + 1} is not where its parent expects it`);
    }
    next += 1;
    const [, head = '', count] = HEADER.exec(line.slice(indent))!;
    const aliased = ALIAS.exec(head);
    const body = aliased ? aliased[1]! : head;
    const space = body.indexOf(' ');
    const node: AstNode = {
      type: space === -1 ? body : body.slice(0, space),
      text: space === -1 ? '' : body.slice(space + 1),
      children: [],
    };
    if (aliased) node.alias = aliased[2];
    if (!/^[A-Za-z][A-Za-z ]*$/.test(node.type)) throw new AstReadError(`line ${next} has no node type`);
    for (let i = 0; i < Number(count ?? 0); i++) node.children.push(read(depth + 1));
    return node;
  };
  const root = read(0);
  // EXPLAIN output may end with an empty line.
  while (next < lines.length && lines[next] === '') next += 1;
  if (next !== lines.length) throw new AstReadError(`line ${next + 1} belongs to no node`);
  return root;
}
