import { describe, expect, it } from 'vitest';
import { JsonArrayWriter } from '../../src/warehouse/json-array-writer.js';
import { RowCutter } from '../../src/warehouse/row-cutter.js';
import { RowsCollector } from '../../src/warehouse/rows-collector.js';

/** Feeds `text` in pieces of `size` bytes and returns what the cutter passed on. */
function cutInPieces(cutter: RowCutter, text: string, size: number): string {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(cutter.take(bytes.subarray(at, at + size)));
  return Buffer.concat(out).toString();
}

describe('RowCutter', () => {
  const csv = '"n","s"\n0,"a\nb"\n1,"say ""hi""\n"\n2,\n3,"x"\n';

  it('passes every row of a CSV result and counts them, however the bytes are split', () => {
    for (const size of [1, 2, 3, 7, 1000]) {
      const cutter = new RowCutter('csv', null);
      expect(cutInPieces(cutter, csv, size)).toBe(csv);
      expect(cutter).toMatchObject({ rows: 4, cut: false });
    }
  });

  it('cuts a CSV result after maxRows rows, counting line breaks inside quotes as part of a value', () => {
    for (const size of [1, 5, 1000]) {
      const cutter = new RowCutter('csv', 2);
      expect(cutInPieces(cutter, csv, size)).toBe('"n","s"\n0,"a\nb"\n1,"say ""hi""\n"\n');
      expect(cutter).toMatchObject({ rows: 2, cut: true });
    }
  });

  it('does not call a result of exactly maxRows rows cut', () => {
    const cutter = new RowCutter('csv', 4);
    expect(cutInPieces(cutter, csv, 3)).toBe(csv);
    expect(cutter).toMatchObject({ rows: 4, cut: false });
  });

  it('skips the names and types lines of the rows format', () => {
    const cutter = new RowCutter('rows', 1);
    expect(cutter.take(Buffer.from('["n"]\n["UInt64"]\n[0]\n[1]\n'))).toEqual(Buffer.from('["n"]\n["UInt64"]\n[0]\n'));
    expect(cutter).toMatchObject({ rows: 1, cut: true });
    expect(cutter.take(Buffer.from('[2]\n'))).toHaveLength(0);
  });
});

describe('JsonArrayWriter', () => {
  it('turns JSON lines split anywhere into one array', () => {
    const writer = new JsonArrayWriter();
    const lines = Buffer.from('{"a":"x\\ny"}\n{"a":"é"}\n');
    const out = [lines.subarray(0, 5), lines.subarray(5, 14), lines.subarray(14, 22), lines.subarray(22)].map((part) => writer.chunk(part));
    const text = Buffer.concat([...out, Buffer.from(writer.end())]).toString();
    expect(JSON.parse(text)).toEqual([{ a: 'x\ny' }, { a: 'é' }]);
  });

  it('writes [] for no rows, and leaves a cut result unclosed', () => {
    expect(new JsonArrayWriter().end()).toBe('[]\n');
    expect(() => JSON.parse(new JsonArrayWriter().chunk(Buffer.from('{"a":1}\n')).toString())).toThrow();
  });
});

describe('RowsCollector', () => {
  it('builds columns and rows from names, types and value lines split anywhere', () => {
    const collector = new RowsCollector();
    const text = Buffer.from('["n", "s"]\n["UInt64", "String"]\n[1, "a"]\n[2, "b"]\n');
    for (let at = 0; at < text.length; at += 4) collector.add(text.subarray(at, at + 4));
    expect(collector.result(2)).toEqual({
      columns: [{ name: 'n', type: 'UInt64' }, { name: 's', type: 'String' }],
      rows: [{ n: 1, s: 'a' }, { n: 2, s: 'b' }],
      truncatedAt: 2,
    });
  });
});
