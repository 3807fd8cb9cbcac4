/**
 * Builds a QueryResult from a result streamed in the `rows` format (a line of names, a line of
 * types, then one JSON array per row). For the table printer and the dashboard's reads, whose
 * results are bounded by their row cap; the machine formats never come through here.
 */
import type { QueryColumn, QueryResult } from './query-result.js';

const NEWLINE = 0x0a;

export class RowsCollector {
  private readonly header: unknown[][] = [];
  private readonly values: unknown[][] = [];
  private partial: Buffer[] = [];

  add(data: Uint8Array): void {
    const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    let at = 0;
    for (let end = chunk.indexOf(NEWLINE, at); end !== -1; end = chunk.indexOf(NEWLINE, at)) {
      const line = this.partial.length > 0 ? Buffer.concat([...this.partial, chunk.subarray(at, end)]) : chunk.subarray(at, end);
      this.partial = [];
      this.line(JSON.parse(line.toString('utf8')) as unknown[]);
      at = end + 1;
    }
    if (at < chunk.length) this.partial.push(chunk.subarray(at));
  }

  /** The rows collected; `truncatedAt` when the result was cut there. */
  result(truncatedAt?: number): QueryResult {
    const [names = [], types = []] = this.header;
    const columns: QueryColumn[] = names.map((name, i) => ({ name: String(name), type: String(types[i]) }));
    const rows = this.values.map((values) => Object.fromEntries(columns.map((column, i) => [column.name, values[i]])));
    return truncatedAt === undefined ? { columns, rows } : { columns, rows, truncatedAt };
  }

  private line(values: unknown[]): void {
    if (this.header.length < 2) this.header.push(values);
    else this.values.push(values);
  }
}
