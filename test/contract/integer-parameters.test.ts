import { describe, expect, it } from 'vitest';
import { INT32_MAX } from '../../src/http/schemas.js';
import { useHarness } from '../harness/app.js';

const harness = useHarness();

interface Schema {
  type?: string | string[];
  minimum?: number;
  maximum?: number;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
}
interface Parameter {
  name: string;
  in: string;
  schema?: Schema;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
}

/** Every integer or number schema inside a parameter's schema (arrays and unions included). */
function numericSchemas(schema: Schema | undefined): Schema[] {
  if (!schema) return [];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const own = types.includes('integer') || types.includes('number') ? [schema] : [];
  return [...own, ...numericSchemas(schema.items), ...(schema.anyOf ?? []).flatMap(numericSchemas), ...(schema.oneOf ?? []).flatMap(numericSchemas)];
}

async function operations(): Promise<{ method: string; path: string; op: Operation }[]> {
  const doc = (await harness().request('GET', '/api/v1/openapi.json', { key: null })).json() as { paths: Record<string, Record<string, Operation>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method)).map(([method, op]) => ({ method, path, op })),
  );
}

// A future route whose path or query takes an unbounded integer fails here, before a client
// finds the database's "value out of range for type integer" as a 500.
describe('integer parameters of the OpenAPI document', () => {
  it('are bounded, each with a minimum and a maximum within PostgreSQL integer', async () => {
    const unbounded: string[] = [];
    let checked = 0;
    for (const { method, path, op } of await operations()) {
      for (const parameter of op.parameters ?? []) {
        if (parameter.in !== 'path' && parameter.in !== 'query') continue;
        for (const schema of numericSchemas(parameter.schema)) {
          checked += 1;
          if (schema.minimum === undefined || schema.maximum === undefined || schema.maximum > INT32_MAX) {
            unbounded.push(`${method.toUpperCase()} ${path} ${parameter.name} (minimum ${schema.minimum}, maximum ${schema.maximum})`);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(unbounded).toEqual([]);
  });

  it('answer 400 naming the parameter for a value past 2^31 - 1, on every GET that takes one', async () => {
    const h = harness();
    const failures: string[] = [];
    let called = 0;
    for (const { method, path, op } of await operations()) {
      if (method !== 'get') continue;
      const url = path.replace(/\{[^}]+\}/g, 'x_unknown');
      for (const parameter of op.parameters ?? []) {
        if (parameter.in !== 'query' || numericSchemas(parameter.schema).length === 0) continue;
        called += 1;
        const res = await h.request('GET', `${url}?${parameter.name}=${INT32_MAX + 1}`);
        const body = res.json() as { message?: string };
        if (res.statusCode !== 400 || !body.message?.includes(parameter.name)) failures.push(`${path} ${parameter.name}: ${res.statusCode} ${res.body}`);
      }
    }
    expect(called).toBeGreaterThan(40);
    expect(failures).toEqual([]);
  });
});
