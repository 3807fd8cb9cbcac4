/**
 * A minimal ClickHouse SQL scanner: enough to tell comments, string literals and quoted identifiers
 * from the rest, so `;` and keywords are only seen where the engine would see them. Where the
 * engine is more lenient (nested block comments, `#` comments) this scanner is stricter, so a
 * statement it calls single is never several to the engine.
 */

export interface ScannedSql {
  /** The SQL with comments removed (each replaced by a space); literals and identifiers intact. */
  code: string;
  /** `code` with the insides of literals and quoted identifiers blanked, for keyword checks. */
  masked: string;
}

export class SqlScanError extends Error {
  override name = 'SqlScanError';
}

export function scanSql(sql: string): ScannedSql {
  let code = '';
  let masked = '';
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    const next = sql[i + 1];
    if (ch === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end;
      code += ' ';
      masked += ' ';
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) throw new SqlScanError('unterminated /* comment');
      i = end + 2;
      code += ' ';
      masked += ' ';
      continue;
    }
    if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) throw new SqlScanError(`unterminated ${ch === "'" ? 'string' : 'quoted identifier'}`);
        const c = sql[j]!;
        if (c === '\\') {
          j += 2;
          continue;
        }
        if (c === ch) {
          // A doubled quote is an escaped quote, not the end.
          if (sql[j + 1] === ch) {
            j += 2;
            continue;
          }
          break;
        }
        j++;
      }
      const literal = sql.slice(i, j + 1);
      code += literal;
      masked += ch + ' '.repeat(literal.length - 2) + ch;
      i = j + 1;
      continue;
    }
    code += ch;
    masked += ch;
    i++;
  }
  return { code, masked };
}
