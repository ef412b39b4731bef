/**
 * Field-level comparison of two OpenAPI documents, for the contract test. Each document is first
 * summarised to the names a client depends on (operation ids, parameters, body and response field
 * paths, success statuses); the reference's summary is committed as a fixture, so the test needs
 * nothing outside the repository.
 */
type Schema = Record<string, unknown>;
export type Doc = { paths: Record<string, Record<string, Schema>>; components?: { schemas?: Record<string, Schema> } };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** What a client of one operation depends on: `where` strings in the form docs/api-differences.md uses. */
export interface OperationNames {
  operationId: string;
  /** `query.x`, `path.x` (headers are not compared). */
  parameters: string[];
  /** Field paths of the JSON request body: `a`, `a.b`, `items[].c`. */
  request_body: string[];
  /** Success status -> field paths of its JSON body. */
  responses: Record<string, string[]>;
}

function resolve(doc: Doc, schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let i = 0; current && typeof current.$ref === 'string' && i < 20; i++) {
    const name = (current.$ref as string).split('/').pop()!;
    current = doc.components?.schemas?.[name];
  }
  return current;
}

/** Dotted field paths a schema describes (`a.b`, `items[].c`), through refs, allOf/oneOf/anyOf. */
function fieldPaths(doc: Doc, schema: Schema | undefined, prefix = '', seen = new Set<Schema>()): Set<string> {
  const out = new Set<string>();
  const s = resolve(doc, schema);
  if (!s || seen.has(s) || prefix.split('.').length > 6) return out;
  const nextSeen = new Set(seen).add(s);
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    for (const alt of (s[key] as Schema[] | undefined) ?? []) for (const p of fieldPaths(doc, alt, prefix, nextSeen)) out.add(p);
  }
  const properties = s.properties as Record<string, Schema> | undefined;
  for (const [name, child] of Object.entries(properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    out.add(path);
    for (const p of fieldPaths(doc, child, path, nextSeen)) out.add(p);
  }
  if (s.items) for (const p of fieldPaths(doc, s.items as Schema, `${prefix}[]`, nextSeen)) out.add(p);
  return out;
}

function jsonSchemaOf(doc: Doc, holder: Schema | undefined): Schema | undefined {
  const content = (resolve(doc, holder)?.content ?? {}) as Record<string, { schema?: Schema }>;
  return content['application/json']?.schema;
}

function namesOf(doc: Doc, op: Schema): OperationNames {
  const parameters = ((op.parameters as Schema[] | undefined) ?? [])
    .map((p) => resolve(doc, p))
    .map((p) => `${p?.in === 'query' ? 'query' : p?.in === 'path' ? 'path' : String(p?.in)}.${String(p?.name)}`)
    .filter((p) => !p.startsWith('header.'));
  const responses: Record<string, string[]> = {};
  for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Schema>)) {
    if (status.startsWith('2')) responses[status] = [...fieldPaths(doc, jsonSchemaOf(doc, response))];
  }
  return {
    operationId: String(op.operationId ?? ''),
    parameters: [...new Set(parameters)],
    request_body: [...fieldPaths(doc, jsonSchemaOf(doc, op.requestBody as Schema))],
    responses,
  };
}

/** `METHOD /path` -> the names of that operation. */
export function summarise(doc: Doc): Map<string, OperationNames> {
  const out = new Map<string, OperationNames>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) out.set(`${method.toUpperCase()} ${path}`, namesOf(doc, op));
    }
  }
  return out;
}

/**
 * What a client written for the reference would miss in ours: each item is `where` in the
 * form used by docs/api-differences.md (`query.x`, `path.x`, `request.body.a.b`, `response.200.a`, `status.201`).
 */
export function missingInOurs(reference: OperationNames, ours: OperationNames): string[] {
  const missing: string[] = [];
  const ourParams = new Set(ours.parameters);
  for (const p of reference.parameters) if (!ourParams.has(p)) missing.push(p);
  const ourBody = new Set(ours.request_body);
  for (const f of reference.request_body) if (!ourBody.has(f)) missing.push(`request.body.${f}`);
  for (const [status, fields] of Object.entries(reference.responses)) {
    const ourFields = ours.responses[status];
    if (!ourFields) {
      missing.push(`status.${status}`);
      continue;
    }
    const have = new Set(ourFields);
    for (const f of fields) if (!have.has(f)) missing.push(`response.${status}.${f}`);
  }
  return missing;
}
