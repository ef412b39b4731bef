import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { missingInOurs, summarise, type OperationNames } from './openapi-compare.js';

const harness = useHarness();
// The reference service's operation, parameter and field names (regenerate with summarise-reference.ts).
const reference = new Map<string, OperationNames>(
  Object.entries(JSON.parse(readFileSync(new URL('./fixtures/reference-operations.json', import.meta.url), 'utf8')).operations),
);

/**
 * Rows `| operation_id[, operation_id...] | where[, where...] | why |` of docs/api-differences.md.
 * A `where` covers itself and everything below it; `*` stands for one segment (e.g. a status).
 */
function explainedDifferences(): { ops: string[]; where: RegExp[] }[] {
  const text = readFileSync(new URL('../../docs/api-differences.md', import.meta.url), 'utf8');
  const rows: { ops: string[]; where: RegExp[] }[] = [];
  const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^.]+');
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || !cells[1] || !cells[2] || /^-+$/.test(cells[1]) || cells[1] === 'operation_id') continue;
    const list = (cell: string) => cell.split(',').map((x) => x.trim().replace(/^`|`$/g, '')).filter(Boolean);
    rows.push({ ops: list(cells[1]), where: list(cells[2]).map((w) => new RegExp(`^${escape(w)}($|[.\\[])`)) });
  }
  return rows;
}

function isExplained(rows: ReturnType<typeof explainedDifferences>, operationId: string, where: string): boolean {
  return rows.some((row) => row.ops.includes(operationId) && row.where.some((pattern) => pattern.test(where)));
}

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1, version 0.1.0, served with a browsable reference page', async () => {
    const h = harness();
    const res = await h.request('GET', '/api/v1/openapi.json', { key: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ openapi: '3.1.0', info: { version: '0.1.0' } });
    const page = await h.request('GET', '/docs/', { key: null });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });

  it('matches the reference for every operation both describe, except the documented differences', async () => {
    const ours = (await harness().request('GET', '/api/v1/openapi.json', { key: null })).json();
    const explained = explainedDifferences();
    const ourOps = summarise(ours);
    const unexplained: string[] = [];
    let compared = 0;
    for (const [key, refOp] of reference) {
      const ourOp = ourOps.get(key);
      if (!ourOp) continue;
      compared += 1;
      for (const where of missingInOurs(refOp, ourOp)) {
        if (!isExplained(explained, refOp.operationId, where)) unexplained.push(`${refOp.operationId} ${where}`);
      }
    }
    expect(compared).toBeGreaterThan(5);
    expect(unexplained).toEqual([]);
  });

  it('names each shared operation with the reference operationId', async () => {
    const ours = summarise((await harness().request('GET', '/api/v1/openapi.json', { key: null })).json());
    const mismatched = [...reference].filter(([key, op]) => ours.has(key) && ours.get(key)!.operationId !== op.operationId).map(([key]) => key);
    expect(mismatched).toEqual([]);
  });
});

describe('the comparison itself', () => {
  it('reports a missing query parameter, body field, response field and success status', async () => {
    const ours = (await harness().request('GET', '/api/v1/openapi.json', { key: null })).json();
    const crippled = structuredClone(ours);
    const list = crippled.paths['/api/v1/products'].get;
    list.parameters = list.parameters.filter((p: { name: string }) => p.name !== 'search');
    delete list.responses['200'].content['application/json'].schema.properties.pagination_meta;
    const create = crippled.paths['/api/v1/products'].post;
    delete create.requestBody.content['application/json'].schema.properties.catalog;
    create.responses['200'] = create.responses['201'];
    delete create.responses['201'];
    const crippledOps = summarise(crippled);
    expect(missingInOurs(reference.get('GET /api/v1/products')!, crippledOps.get('GET /api/v1/products')!)).toEqual(
      expect.arrayContaining(['query.search', 'response.200.pagination_meta', 'response.200.pagination_meta.total_pages']),
    );
    expect(missingInOurs(reference.get('POST /api/v1/products')!, crippledOps.get('POST /api/v1/products')!)).toEqual(['request.body.catalog', 'status.201']);
  });
});
