// One owner per table (docs/architecture.md, "Table owners"): SQL in a module may name only the
// tables that module owns; it reaches other tables through the owner's index.ts. Also checks that
// the owner map, the migrations, the doc and the module order of .dependency-cruiser.cjs agree.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { TABLE_OWNERS } from '../../src/db/table-owners.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, suffix);
    return entry.name.endsWith(suffix) ? [path] : [];
  });
}

/** Tables created by the migrations (partitions are created by name at run time and not listed). */
function migrationTables(): string[] {
  const sql = filesUnder(join(SRC, 'db', 'migrations'), '.sql').map((file) => readFileSync(file, 'utf8')).join('\n');
  return [...sql.matchAll(/\bCREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)/gi)].map((m) => m[1]!);
}

/** src/modules/<m>/... belongs to module m; src/<dir>/... to `dir` (db, http, jobs...); src/x.ts to `src`. */
function ownerOfFile(file: string): string {
  const parts = relative(SRC, file).split(sep);
  if (parts[0] === 'modules') return parts[1]!;
  return parts.length > 1 ? parts[0]! : 'src';
}

/** The texts of every string and template literal of a TypeScript source (template parts separately). */
function literalTexts(source: string): { text: string; line: number; fromProperty: boolean }[] {
  const file = ts.createSourceFile('file.ts', source, ts.ScriptTarget.Latest, true);
  const out: { text: string; line: number; fromProperty: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      // `{ from: 'products' }` is the table of a paged query (db/tenant-scope.ts `page`)
      const fromProperty = ts.isPropertyAssignment(node.parent) && node.parent.initializer === node && node.parent.name.getText(file) === 'from';
      out.push({ text: node.text, line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, fromProperty });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

const SQL_TABLE = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(?:ONLY\s+)?([a-z_][a-z0-9_]*)/gi;

/** Known tables a source names in SQL: after FROM, JOIN, INTO, UPDATE, DELETE FROM, (LOCK) TABLE. */
function tablesNamedIn(source: string, known: ReadonlySet<string>): { table: string; line: number }[] {
  const found: { table: string; line: number }[] = [];
  // parsing is the slow part: skip sources that cannot name a table
  if (![...source.matchAll(SQL_TABLE)].some((m) => known.has(m[1]!)) && !/\bfrom:/.test(source)) return found;
  for (const literal of literalTexts(source)) {
    const names = literal.fromProperty ? [literal.text.trim()] : [...literal.text.matchAll(SQL_TABLE)].map((m) => m[1]!);
    for (const name of names) if (known.has(name)) found.push({ table: name, line: literal.line });
  }
  return found;
}

describe('table owners', () => {
  const tables = migrationTables();
  const known = new Set(tables);

  it('lists every table of the migrations exactly once, and nothing else', () => {
    expect(new Set(tables).size).toBe(tables.length);
    expect(Object.keys(TABLE_OWNERS).sort()).toEqual([...tables].sort());
  });

  it('gives every table an owner that exists: a module, or db / http / jobs', () => {
    const modules = new Set(readdirSync(join(SRC, 'modules')));
    for (const [table, { owner }] of Object.entries(TABLE_OWNERS)) {
      expect(modules.has(owner) || owner === 'db' || owner === 'http' || owner === 'jobs', `${table} -> ${owner}`).toBe(true);
    }
  });

  it('finds the tables named in SQL literals, and only there', () => {
    const sample = [
      'const a = `SELECT id FROM invoices i JOIN credit_notes c ON c.invoice_id = i.id`;',
      "const b = 'UPDATE invoicing_entities SET x = 1'; const c = `DELETE FROM customers WHERE ${where}`;",
      "const d = 'INSERT INTO documents (id) VALUES ($1)'; const e = 'LOCK TABLE outbox_events IN SHARE MODE';",
      "page({ from: 'products', where }); // FROM plans in a comment is not SQL",
      "throw badRequest('taken from subscriptions_x'); const f = `SELECT 1 FROM unnest($1) AS s(id)`;",
    ].join('\n');
    expect(tablesNamedIn(sample, known).map((f) => f.table)).toEqual(['invoices', 'credit_notes', 'invoicing_entities', 'customers', 'documents', 'outbox_events', 'products']);
  });

  it('lets SQL in each module name only the tables that module owns', () => {
    const violations: string[] = [];
    for (const file of filesUnder(SRC, '.ts')) {
      const owner = ownerOfFile(file);
      for (const { table, line } of tablesNamedIn(readFileSync(file, 'utf8'), known)) {
        const tableOwner = TABLE_OWNERS[table]!.owner;
        if (tableOwner !== owner) violations.push(`${relative(ROOT, file)}:${line} names ${table}, owned by ${tableOwner}; use ${tableOwner}'s index.ts`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('matches the table of docs/architecture.md', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const section = doc.split(/^## /m).find((part) => part.startsWith('Table owners'));
    expect(section, 'docs/architecture.md has a "## Table owners" section').toBeDefined();
    const rows = section!
      .split('\n')
      .filter((line) => /^\| `[a-z_]+` \|/.test(line))
      .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim().replace(/^`|`$/g, '')));
    expect(rows).toEqual(Object.entries(TABLE_OWNERS).map(([table, { owner, why }]) => [table, owner, why]));
  });

  it('documents the module order that .dependency-cruiser.cjs enforces', () => {
    const config = readFileSync(join(ROOT, '.dependency-cruiser.cjs'), 'utf8');
    const array = /const MODULE_ORDER = \[([\s\S]*?)\];/.exec(config)?.[1] ?? '';
    const configOrder = [...array.matchAll(/'([a-z-]+)'/g)].map((m) => m[1]!);
    expect([...configOrder].sort()).toEqual(readdirSync(join(SRC, 'modules')).sort());
    const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    // the order is the doc's lines made only of `name -> name -> ...`
    const documented = doc.split('\n').filter((line) => /^[a-z-]+ ->( [a-z-]+( ->)?)+$|^[a-z-]+( -> [a-z-]+)+$/.test(line.trim()));
    expect(documented.join(' ').split(/\s*->\s*|\s+/)).toEqual(configOrder);
  });
});
