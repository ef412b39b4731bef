import { badRequest } from '../../kernel/errors.js';

/**
 * One data row of an import file, keyed by header; or why the row cannot be read. `key`: what
 * identifies the row across files, when its job type needs one (bank lines), set at creation.
 */
export type CsvItem = ({ values: Record<string, string> } | { error: string }) & { key?: string };

export interface ParsedCsv {
  header: string[];
  /** Data rows in file order (blank lines skipped); the position is the item index. */
  items: CsvItem[];
}

/**
 * RFC 4180 records: `delimiter`-separated fields, optional double quotes (a quote inside a
 * quoted field is doubled), LF or CRLF line ends, a leading UTF-8 BOM ignored. Quoted fields may
 * span lines. An unterminated quote makes the file unreadable: 400 naming `csv`.
 */
export function parseRecords(text: string, delimiter: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = () => {
    record.push(field);
    records.push(record);
    record = [];
    field = '';
    fieldStarted = false;
  };
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
      continue;
    }
    if (ch === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
    } else if (ch === delimiter) {
      record.push(field);
      field = '';
      fieldStarted = false;
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else {
      field += ch;
      fieldStarted = true;
    }
  }
  if (quoted) throw badRequest('csv has a quoted field that is never closed');
  if (fieldStarted || record.length > 0) endRecord();
  return records;
}

/**
 * The header and the data rows of an import file. Header names are trimmed; a blank or repeated
 * name is a 400. A row with a different number of fields than the header becomes a per-item
 * failure rather than refusing the file: the other rows can still be imported.
 */
export function parseCsv(text: string, delimiter: string): ParsedCsv {
  const records = parseRecords(text, delimiter).filter((r) => !(r.length === 1 && r[0]!.trim() === ''));
  const headerRecord = records.shift();
  if (!headerRecord) throw badRequest('csv is empty: it needs a header row');
  const header = headerRecord.map((name) => name.trim());
  const seen = new Set<string>();
  header.forEach((name, index) => {
    if (name === '') throw badRequest(`csv header column ${index + 1} has no name`);
    if (seen.has(name)) throw badRequest(`csv header repeats column '${name}'`);
    seen.add(name);
  });
  const items: CsvItem[] = records.map((record) => {
    if (record.length !== header.length) return { error: `row has ${record.length} fields where the header has ${header.length}` };
    return { values: Object.fromEntries(header.map((name, index) => [name, record[index]!.trim()])) };
  });
  return { header, items };
}
