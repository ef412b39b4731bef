// File formats of an export: Parquet through hyparquet-writer, CSV through csv-stringify
// (docs/export.md, "What we picked").
import { stringify } from 'csv-stringify/sync';
import type { ColumnSource } from 'hyparquet-writer';
import { atFirstUse } from '../../kernel/lazy.js';
import type { Column, ColumnType, ExportRecord, Value } from './datasets.js';

export const FORMATS = ['PARQUET', 'CSV'] as const;
export type ExportFormat = (typeof FORMATS)[number];

export const EXTENSION: Record<ExportFormat, string> = { PARQUET: 'parquet', CSV: 'csv' };

/** Parquet type of each column type: decimals stay strings (the currency decides the digits, so one column has no single scale). */
const PARQUET_TYPE: Record<ColumnType, ColumnSource['type']> = { string: 'STRING', decimal: 'STRING', integer: 'INT64', boolean: 'BOOLEAN', timestamp: 'TIMESTAMP' };

/** hyparquet-writer (and the hyparquet reader it loads, about 1.3 MB of heap) is imported at the first Parquet file, not at start (docs/performance.md, "Memory"). */
const parquetWriter = atFirstUse(async () => (await import('hyparquet-writer')).parquetWriteBuffer);

async function parquet(columns: Column[], records: ExportRecord[]): Promise<Buffer> {
  const parquetWriteBuffer = await parquetWriter();
  const columnData: ColumnSource[] = columns.map((column) => ({
    name: column.name,
    type: PARQUET_TYPE[column.type],
    data: records.map((record) => record[column.name] ?? null),
  }));
  return Buffer.from(parquetWriteBuffer({ columnData, createdBy: 'tally-billing export' }));
}

/** CSV cell text: RFC 3339 instants, integers in full, `true`/`false`, empty for null. */
function csvCell(value: Value | undefined): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

function csv(columns: Column[], records: ExportRecord[]): Buffer {
  const rows = records.map((record) => columns.map((column) => csvCell(record[column.name])));
  return Buffer.from(stringify([columns.map((c) => c.name), ...rows]), 'utf8');
}

/** The file content of one dataset's records. */
export async function encode(format: ExportFormat, columns: Column[], records: ExportRecord[]): Promise<Buffer> {
  return format === 'PARQUET' ? parquet(columns, records) : csv(columns, records);
}
