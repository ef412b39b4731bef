import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';

/**
 * The API reference is complete: every operation of /api/v1/openapi.json says what it does and
 * its rules, shows examples, and lists its errors; and /docs shows that same document.
 */
const harness = useHarness();

type Node = Record<string, unknown>;
interface Doc extends Node {
  paths: Record<string, Record<string, Node>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
/** Something that ends like a sentence: words, then `.`, `!` or `?` at a word's end. */
const SENTENCE = /[A-Za-z].*[.!?](\s|$)/s;

async function fetchDocument(): Promise<Doc> {
  const res = await harness().request('GET', '/api/v1/openapi.json', { key: null });
  expect(res.statusCode).toBe(200);
  return res.json();
}

/** Follows local `$ref`s (`#/components/...`) until a node that is not a reference. */
function resolve(doc: Doc, node: unknown): Node | undefined {
  let current = node as Node | undefined;
  for (let hops = 0; current && typeof current.$ref === 'string' && hops < 20; hops++) {
    const pointer = (current.$ref as string).replace(/^#\//, '').split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    current = pointer.reduce<unknown>((at, key) => (at as Node | undefined)?.[key], doc) as Node | undefined;
  }
  return current;
}

interface Operation {
  id: string;
  method: string;
  path: string;
  op: Node;
}

function operationsOf(doc: Doc): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) out.push({ id: String(op.operationId ?? `${method.toUpperCase()} ${path}`), method, path, op });
    }
  }
  return out;
}

const hasItems = (value: unknown) => (Array.isArray(value) ? value.length > 0 : !!value && typeof value === 'object' && Object.keys(value).length > 0);

/** The examples a media type shows: its own `example`/`examples`, else its schema's. */
function examplesOf(doc: Doc, media: Node): unknown[] {
  if (media.example !== undefined) return [media.example];
  if (hasItems(media.examples)) return Object.values(media.examples as Record<string, Node>).map((e) => resolve(doc, e)?.value);
  const schema = resolve(doc, media.schema);
  if (schema?.example !== undefined) return [schema.example];
  if (Array.isArray(schema?.examples)) return schema.examples;
  return [];
}

/** A string schema with nothing that says what the string is: swagger-ui's "string" placeholder. */
function isBareString(schema: Node | undefined): boolean {
  if (!schema) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.length === 1 && types[0] === 'string' && !['format', 'enum', 'const', 'pattern', 'contentMediaType'].some((k) => k in schema);
}

function problemsOf(doc: Doc, { method, path, op }: Operation): string[] {
  const problems: string[] = [];
  if (typeof op.summary !== 'string' || !op.summary.trim()) problems.push('no summary');
  if (typeof op.description !== 'string' || !SENTENCE.test(op.description)) problems.push('no description sentence');
  if (!Array.isArray(op.tags) || op.tags.length === 0) problems.push('no tag');

  const body = resolve(doc, op.requestBody);
  const bodyJson = (body?.content as Record<string, Node> | undefined)?.['application/json'];
  if (bodyJson && examplesOf(doc, bodyJson).length === 0) problems.push(`${method.toUpperCase()} body has no example`);

  const responses = Object.entries((op.responses as Record<string, unknown> | undefined) ?? {});
  if (!responses.some(([status]) => /^[23]/.test(status))) problems.push('no success response');
  // Liveness and readiness probes have no client error; every API operation has at least one.
  if (path.startsWith('/api/') && !responses.some(([status]) => /^4/.test(status))) problems.push('no 4xx response');
  for (const [status, raw] of responses) {
    const response = resolve(doc, raw);
    if (!response || response.description === 'Default Response' || !String(response.description ?? '').trim()) problems.push(`${status} has no description`);
    for (const [type, media] of Object.entries((response?.content as Record<string, Node> | undefined) ?? {})) {
      if (isBareString(resolve(doc, media.schema))) problems.push(`${status} ${type} is a bare string`);
      if (/^2/.test(status) && type.includes('json') && examplesOf(doc, media).length === 0) problems.push(`${status} has no example`);
    }
  }
  return problems;
}

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** Every example of every request body and response, with the schema it must satisfy. */
function examplesWithSchemas(doc: Doc): { where: string; schema: Node; example: unknown }[] {
  const out: { where: string; schema: Node; example: unknown }[] = [];
  for (const operation of operationsOf(doc)) {
    const { op } = operation;
    const media: [string, Node][] = [];
    const body = resolve(doc, op.requestBody);
    for (const [type, m] of Object.entries((body?.content as Record<string, Node> | undefined) ?? {})) media.push([`body ${type}`, m]);
    for (const [status, raw] of Object.entries((op.responses as Record<string, unknown> | undefined) ?? {})) {
      for (const [type, m] of Object.entries((resolve(doc, raw)?.content as Record<string, Node> | undefined) ?? {})) media.push([`${status} ${type}`, m]);
    }
    for (const [where, m] of media) {
      const schema = resolve(doc, m.schema);
      if (!schema) continue;
      examplesOf(doc, m).forEach((example, i) => out.push({ where: `${operation.id} ${where} example ${i + 1}`, schema, example }));
    }
  }
  return out;
}

/** Each example that its schema refuses, with where it is and why. */
function wrongExamples(doc: Doc): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  const wrong: string[] = [];
  for (const { where, schema, example } of examplesWithSchemas(doc)) {
    // The document's components travel with each schema so `#/components/...` references resolve.
    const validate = ajv.compile({ ...schema, components: doc.components });
    if (!validate(example)) wrong.push(`${where}: ${ajv.errorsText(validate.errors)}`);
  }
  return wrong;
}

describe('API reference (/api/v1/openapi.json)', () => {
  it('documents every operation: summary, description, tags, examples, errors, no placeholders', async () => {
    const doc = await fetchDocument();
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThan(100);
    const offending = operations.map((o) => ({ id: o.id, problems: problemsOf(doc, o) })).filter((o) => o.problems.length > 0);
    const report = offending.map((o) => `${o.id}: ${o.problems.join('; ')}`).join('\n');
    expect(offending.map((o) => o.id), `${offending.length} operations are not fully documented:\n${report}\n`).toEqual([]);
  });

  it('shows examples that satisfy their own schemas', async () => {
    const wrong = wrongExamples(await fetchDocument());
    expect(wrong, `examples that do not match their schema:\n${wrong.join('\n')}\n`).toEqual([]);
  });

  it('adds the errors the HTTP layer answers: 400, 401, 409 and Idempotency-Key on POST, 415 for bodies, 429 by rate limit class', async () => {
    const doc = await fetchDocument();
    const jsonExample = (response: Node | undefined) => examplesOf(doc, (response!.content as Record<string, Node>)['application/json']!);
    const create = doc.paths['/api/v1/products']!.post!;
    const created = create.responses as Record<string, Node>;
    expect(Object.keys(created)).toEqual(expect.arrayContaining(['400', '401', '409', '415', '429']));
    expect(jsonExample(created['429'])).toEqual([{ code: 'TOO_MANY_REQUESTS', message: expect.stringContaining('too many requests for writes') }]);
    const headers = ((create.parameters as Node[] | undefined) ?? []).filter((p) => p.in === 'header').map((p) => String(p.name).toLowerCase());
    expect(headers).toContain('idempotency-key');
    // An operation answering {message} documents its errors in that shape, except 401, which always carries its code.
    const list = doc.paths['/api/v1/products']!.get!.responses as Record<string, Node>;
    expect(jsonExample(list['429'])).toEqual([{ message: expect.stringContaining('too many requests for reads') }]);
    expect(jsonExample(list['401'])).toEqual([{ code: 'UNAUTHORIZED', message: expect.any(String) }]);
    // Any unknown query parameter is a 400, also where the operation takes none.
    const tenant = doc.paths['/api/v1/tenant']!.get!.responses as Record<string, Node>;
    expect(jsonExample(tenant['400'])).toEqual([{ code: 'BAD_REQUEST', message: 'verbose is not a known query parameter; this endpoint takes none (query)' }]);
    // Probes take no token and count in no rate limit.
    expect(Object.keys(doc.paths['/health']!.get!.responses as object)).toEqual(['200']);
  });
});

describe('the checks themselves', () => {
  it('name each missing piece of an operation', async () => {
    const doc = await fetchDocument();
    const broken: Doc = {
      paths: {
        '/api/v1/things': {
          post: {
            operationId: 'create_thing',
            summary: ' ',
            description: 'no sentence end',
            requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
            responses: {
              200: { description: 'Default Response', content: { 'application/json': { schema: { type: 'string' } } } },
            },
          },
        },
      },
    };
    expect(problemsOf(broken, operationsOf(broken)[0]!)).toEqual([
      'no summary',
      'no description sentence',
      'no tag',
      'POST body has no example',
      'no 4xx response',
      '200 has no description',
      '200 application/json is a bare string',
      '200 has no example',
    ]);
    // An example through a $ref counts, and a PDF (binary string) is not a placeholder.
    const viaRef: Doc = {
      ...doc,
      paths: {
        '/api/v1/things/{id}': {
          get: {
            operationId: 'get_thing',
            summary: 'Get a thing',
            description: 'Returns the thing.',
            tags: ['Things'],
            responses: {
              200: { description: 'The thing.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } }, 'application/pdf': { schema: { type: 'string', format: 'binary' } } } },
              404: { description: 'Not found.' },
            },
          },
        },
      },
      components: { schemas: { Thing: { type: 'object', examples: [{ id: 'thg_1' }] } } },
    };
    expect(problemsOf(viaRef, operationsOf(viaRef)[0]!)).toEqual([]);
    expect(wrongExamples(viaRef)).toEqual([]);
  });

  it('name an example its schema refuses', () => {
    const doc: Doc = {
      paths: {
        '/api/v1/things': {
          get: {
            operationId: 'list_things',
            responses: {
              200: {
                description: 'Things.',
                content: { 'application/json': { schema: { type: 'object', required: ['amount'], properties: { amount: { type: 'string' } } }, example: { amount: 49 } } },
              },
            },
          },
        },
      },
    };
    expect(wrongExamples(doc)).toEqual(['list_things 200 application/json example 1: data/amount must be string']);
  });
});

describe('the reference page (/docs)', () => {
  it('loads /api/v1/openapi.json, the document the README names', async () => {
    const h = harness();
    const page = await h.request('GET', '/docs/', { key: null });
    expect(page.statusCode).toBe(200);
    const initializer = await h.request('GET', '/docs/static/swagger-initializer.js', { key: null });
    expect(initializer.statusCode).toBe(200);
    // swagger-ui fetches `url` only when `urls` is absent; with `urls` its top bar loads the first entry.
    const config = JSON.parse(/const config = (\{.*\})\n/.exec(initializer.body)?.[1] ?? 'null') as { urls?: { url: string }[] } | null;
    expect(config?.urls?.map((u) => u.url)).toEqual(['/api/v1/openapi.json']);
  });
});
