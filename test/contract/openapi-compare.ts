/** Field-level comparison of two OpenAPI documents, for the contract test. */
type Schema = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, Schema>>; components?: { schemas?: Record<string, Schema> } };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function resolve(doc: Doc, schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let i = 0; current && typeof current.$ref === 'string' && i < 20; i++) {
    const name = (current.$ref as string).split('/').pop()!;
    current = doc.components?.schemas?.[name];
  }
  return current;
}

/** Dotted field paths a schema describes (`a.b`, `items[].c`), through refs, allOf/oneOf/anyOf. */
export function fieldPaths(doc: Doc, schema: Schema | undefined, prefix = '', seen = new Set<Schema>()): Set<string> {
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

export interface Operation {
  key: string;
  operationId: string;
  op: Schema;
}

export function operations(doc: Doc): Map<string, Operation> {
  const out = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) out.set(`${method.toUpperCase()} ${path}`, { key: `${method.toUpperCase()} ${path}`, operationId: String(op.operationId ?? ''), op });
    }
  }
  return out;
}

function jsonSchemaOf(doc: Doc, holder: Schema | undefined): Schema | undefined {
  const content = (resolve(doc, holder)?.content ?? {}) as Record<string, { schema?: Schema }>;
  return content['application/json']?.schema;
}

function successStatuses(op: Schema): string[] {
  return Object.keys((op.responses ?? {}) as object).filter((s) => s.startsWith('2'));
}

/**
 * What a client written for the reference would miss in ours: each item is `where` in the
 * form used by docs/api-differences.md (`query.x`, `path.x`, `request.body.a.b`, `response.200.a`, `status.201`).
 */
export function missingInOurs(reference: Doc, ours: Doc, refOp: Schema, ourOp: Schema): string[] {
  const missing: string[] = [];
  const params = (doc: Doc, op: Schema) =>
    new Set(((op.parameters as Schema[] | undefined) ?? []).map((p) => resolve(doc, p)).map((p) => `${p?.in === 'query' ? 'query' : p?.in === 'path' ? 'path' : String(p?.in)}.${String(p?.name)}`));
  const ourParams = params(ours, ourOp);
  for (const p of params(reference, refOp)) if (!p.startsWith('header.') && !ourParams.has(p)) missing.push(p);

  const ourBody = fieldPaths(ours, jsonSchemaOf(ours, ourOp.requestBody as Schema));
  for (const f of fieldPaths(reference, jsonSchemaOf(reference, refOp.requestBody as Schema))) if (!ourBody.has(f)) missing.push(`request.body.${f}`);

  const ourSuccess = successStatuses(ourOp);
  for (const status of successStatuses(refOp)) {
    if (!ourSuccess.includes(status)) {
      missing.push(`status.${status}`);
      continue;
    }
    const refResponses = refOp.responses as Record<string, Schema>;
    const ourResponses = ourOp.responses as Record<string, Schema>;
    const ourFields = fieldPaths(ours, jsonSchemaOf(ours, ourResponses[status]));
    for (const f of fieldPaths(reference, jsonSchemaOf(reference, refResponses[status]))) if (!ourFields.has(f)) missing.push(`response.${status}.${f}`);
  }
  return missing;
}
