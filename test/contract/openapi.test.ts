import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { missingInOurs, operations } from './openapi-compare.js';

const harness = useHarness();
const reference = JSON.parse(readFileSync(new URL('../../../shared/reference/reference-openapi.json', import.meta.url), 'utf8'));

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
    const ourOps = operations(ours);
    const unexplained: string[] = [];
    let compared = 0;
    for (const [key, refOp] of operations(reference)) {
      const ourOp = ourOps.get(key);
      if (!ourOp) continue;
      compared += 1;
      for (const where of missingInOurs(reference, ours, refOp.op, ourOp.op)) {
        if (!isExplained(explained, refOp.operationId, where)) unexplained.push(`${refOp.operationId} ${where}`);
      }
    }
    expect(compared).toBeGreaterThan(5);
    expect(unexplained).toEqual([]);
  });

  it('names each shared operation with the reference operationId', async () => {
    const ours = operations((await harness().request('GET', '/api/v1/openapi.json', { key: null })).json());
    const mismatched = [...operations(reference)].filter(([key, op]) => ours.has(key) && ours.get(key)!.operationId !== op.operationId).map(([key]) => key);
    expect(mismatched).toEqual([]);
  });
});

describe('the comparison itself', () => {
  it('reports a missing query parameter, body field, response field and success status', async () => {
    const ours = (await harness().request('GET', '/api/v1/openapi.json', { key: null })).json();
    const refOps = operations(reference);
    const list = refOps.get('GET /api/v1/products')!.op;
    const create = refOps.get('POST /api/v1/products')!.op;
    const crippledList = structuredClone(operations(ours).get('GET /api/v1/products')!.op) as Record<string, any>;
    crippledList.parameters = crippledList.parameters.filter((p: { name: string }) => p.name !== 'search');
    delete crippledList.responses['200'].content['application/json'].schema.properties.pagination_meta;
    expect(missingInOurs(reference, ours, list, crippledList)).toEqual(
      expect.arrayContaining(['query.search', 'response.200.pagination_meta', 'response.200.pagination_meta.total_pages']),
    );
    const crippledCreate = structuredClone(operations(ours).get('POST /api/v1/products')!.op) as Record<string, any>;
    delete crippledCreate.requestBody.content['application/json'].schema.properties.catalog;
    crippledCreate.responses['200'] = crippledCreate.responses['201'];
    delete crippledCreate.responses['201'];
    expect(missingInOurs(reference, ours, create, crippledCreate)).toEqual(['request.body.catalog', 'status.201']);
  });
});
