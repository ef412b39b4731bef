/**
 * Regenerates test/contract/fixtures/reference-operations.json from the reference service's OpenAPI
 * document, given as the only argument:
 *
 *   npx tsx test/contract/summarise-reference.ts path/to/reference-openapi.json
 *
 * The fixture keeps only the names a client depends on (see OperationNames), so the contract test
 * runs from the repository alone.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { summarise, type Doc } from './openapi-compare.js';

const source = process.argv[2];
if (!source) {
  process.stderr.write('usage: npx tsx test/contract/summarise-reference.ts <reference-openapi.json>\n');
  process.exit(2);
}
const doc = JSON.parse(readFileSync(source, 'utf8')) as Doc & { info?: { title?: string; version?: string } };
const operations = Object.fromEntries([...summarise(doc)].sort(([a], [b]) => a.localeCompare(b)));
const fixture = { reference: { title: doc.info?.title, version: doc.info?.version }, operations };
writeFileSync(new URL('./fixtures/reference-operations.json', import.meta.url), `${JSON.stringify(fixture, null, 1)}\n`);
process.stdout.write(`${Object.keys(operations).length} operations written\n`);
