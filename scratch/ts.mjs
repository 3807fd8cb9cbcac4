import { query } from 'chdb';
for (const v of ['0001-01-01 00:00:00.000', '1899-12-31 23:59:59.000', '2300-01-01 00:00:00.000', '9999-12-31 23:59:59.999', '+010000-01-01 00:00:00.000', '-000001-01-01 00:00:00.000']) {
  try { console.log(v, '->', query(`SELECT * FROM format(JSONCompactEachRow, 'a Nullable(DateTime64(3, \\'UTC\\'))', '[${JSON.stringify(v)}]')`, 'CSV').trim()); } catch (e) { console.log(v, 'ERR', String(e).slice(0,200)); }
}
for (const s of ['2024-01-01T10:00:00.123456789Z','2024-01-01T10:00:00+0000','2024-01-01T10:00:00 UTC','2024-01-01T10:00:00.000+00:00','20240101T100000Z','2024-01-01t10:00:00z', '1704103200', '0001-01-01T00:00:00Z', '2024-01-01T10:00:00.000000Z'])
  console.log(s, Date.parse(s));
