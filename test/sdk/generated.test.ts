import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import * as sdk from '../../sdk/src/index.js';
import type { CreateCustomerErrors, GetInvoiceByIdResponse, ListProductsErrors } from '../../sdk/src/index.js';
import { generateSdk } from '../../sdk/scripts/generate.js';
import { openApiDocument } from '../../sdk/scripts/openapi-document.js';

/**
 * sdk/src/gen is @hey-api/openapi-ts's output for the service's own OpenAPI document: these tests
 * regenerate it into a temporary folder and fail when the committed copy differs (run
 * `npm run sdk`), when an operation has no function, or when money is typed as a number.
 */

const SDK_GEN = fileURLToPath(new URL('../../sdk/src/gen', import.meta.url));
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Document = { paths: Record<string, Record<string, { operationId?: string }>> };
let document: Document;
let fresh: string;

async function filesUnder(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    files.set(relative(root, full), await readFile(full, 'utf8'));
  }
  return files;
}

beforeAll(async () => {
  document = (await openApiDocument()) as unknown as Document;
  fresh = await mkdtemp(join(tmpdir(), 'sdk-fresh-'));
  await generateSdk(fresh, document as unknown as Record<string, unknown>);
}, 300_000);

afterAll(async () => {
  if (fresh) await rm(fresh, { recursive: true, force: true });
});

describe('the generated SDK', () => {
  it('is what `npm run sdk` generates from the current OpenAPI document (else run npm run sdk)', async () => {
    const committed = await filesUnder(SDK_GEN);
    const regenerated = await filesUnder(join(fresh, 'src', 'gen'));
    expect([...committed.keys()].sort()).toEqual([...regenerated.keys()].sort());
    const stale = [...regenerated].filter(([file, text]) => committed.get(file) !== text).map(([file]) => file);
    expect(stale, `stale files in sdk/src/gen: ${stale.join(', ')}; run npm run sdk`).toEqual([]);
  });

  it('has one function per operation of the document, named by its operationId', async () => {
    const operationIds = Object.values(document.paths).flatMap((item) =>
      Object.entries(item).filter(([method]) => METHODS.includes(method)).map(([, operation]) => operation.operationId),
    );
    expect(operationIds.length).toBeGreaterThan(150);
    expect(operationIds.filter((id) => !id)).toEqual([]);
    const camel = (id: string) => id.replace(/[_-]([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    const exported = sdk as unknown as Record<string, unknown>;
    expect(operationIds.filter((id) => typeof exported[camel(id!)] !== 'function')).toEqual([]);
    // and no more: every exported `export const x = <ThrowOnError…` of sdk.gen.ts is an operation
    const generated = (await readFile(join(SDK_GEN, 'sdk.gen.ts'), 'utf8')).match(/^export const \w+ = </gm) ?? [];
    expect(generated.length).toBe(operationIds.length);
  });

  it('types money as decimal strings: no money-named field of the document is a number', () => {
    // names of amounts of money in this API; counts and sizes that end like them are not money
    const money = /(^|_)(amount|amount_due|total|subtotal|price|unit_price|balance|tax|discount|fee|credit|overage|per_unit_overage|threshold_amount)$/;
    const notMoney = new Set(['total_items', 'total_pages', 'total_count', 'included_amount']);
    const numeric: string[] = [];
    const walk = (schema: unknown, path: string) => {
      if (Array.isArray(schema)) return schema.forEach((s, i) => walk(s, `${path}[${i}]`));
      if (typeof schema !== 'object' || schema === null) return;
      const s = schema as Record<string, unknown>;
      const name = path.split('.').pop()!;
      if ((s.type === 'number' || s.type === 'integer') && money.test(name) && !notMoney.has(name)) numeric.push(path);
      // a `properties` object is walked as if a schema: its entries are then named by the property
      for (const [key, value] of Object.entries(s)) walk(value, key === 'properties' ? path : `${path}.${key}`);
    };
    walk(document.paths, 'paths');
    expect(numeric).toEqual([]);
    // and the generated types say so (checked by tsc)
    expectTypeOf<GetInvoiceByIdResponse['total']>().toEqualTypeOf<string>();
    expectTypeOf<GetInvoiceByIdResponse['amount_due']>().toEqualTypeOf<string>();
  });

  it("types each operation's error bodies: the contract's {code, message} per status", () => {
    expectTypeOf<CreateCustomerErrors[401]>().toEqualTypeOf<{ code: string; message: string }>();
    expectTypeOf<ListProductsErrors[429]>().toHaveProperty('message');
    const error = new sdk.BillingApiError(404, { code: 'NOT_FOUND', message: 'customer not found' });
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'customer not found' });
  });
});
