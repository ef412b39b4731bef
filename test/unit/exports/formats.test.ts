import { describe, expect, it } from 'vitest';
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { parse } from 'csv-parse/sync';
import { encode } from '../../../src/modules/exports/formats.js';
import type { Column, ExportRecord } from '../../../src/modules/exports/datasets.js';

const columns: Column[] = [
  { name: 'id', type: 'string' },
  { name: 'total', type: 'decimal' },
  { name: 'count', type: 'integer' },
  { name: 'paid', type: 'boolean' },
  { name: 'at', type: 'timestamp' },
];
const records: ExportRecord[] = [
  { id: 'inv_1', total: '144.00', count: 3n, paid: true, at: new Date('2026-03-15T12:00:00.000Z') },
  { id: 'inv_2, "quoted"', total: '-0.50', count: 0n, paid: false, at: null },
];

describe('export formats', () => {
  it('writes Parquet with typed columns that a reader gets back as written', async () => {
    const body = await encode('PARQUET', columns, records);
    const file = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;
    expect(await parquetReadObjects({ file })).toEqual([
      { id: 'inv_1', total: '144.00', count: 3n, paid: true, at: new Date('2026-03-15T12:00:00.000Z') },
      { id: 'inv_2, "quoted"', total: '-0.50', count: 0n, paid: false, at: null },
    ]);
    const schema = parquetSchema(parquetMetadata(file)).children.map((c) => [c.element.name, c.element.type]);
    expect(schema).toEqual([['id', 'BYTE_ARRAY'], ['total', 'BYTE_ARRAY'], ['count', 'INT64'], ['paid', 'BOOLEAN'], ['at', 'INT64']]);
  });

  it('writes an empty Parquet file for no rows, with its columns', async () => {
    const body = await encode('PARQUET', columns, []);
    const file = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;
    expect(await parquetReadObjects({ file })).toEqual([]);
    expect(parquetSchema(parquetMetadata(file)).children).toHaveLength(5);
  });

  it('writes CSV with a header, RFC 3339 instants, empty cells for null and quoting', async () => {
    const text = (await encode('CSV', columns, records)).toString('utf8');
    expect(text.split('\n')[0]).toBe('id,total,count,paid,at');
    expect(parse(text, { columns: true })).toEqual([
      { id: 'inv_1', total: '144.00', count: '3', paid: 'true', at: '2026-03-15T12:00:00.000Z' },
      { id: 'inv_2, "quoted"', total: '-0.50', count: '0', paid: 'false', at: '' },
    ]);
    expect((await encode('CSV', columns, [])).toString('utf8')).toBe('id,total,count,paid,at\n');
  });
});
