// Reading the served OpenAPI document: its operations, their parameters and body schemas, and the
// error shapes the contract allows for an answer.

export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  examples?: unknown[];
  example?: unknown;
  minLength?: number;
  minimum?: number;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
}

interface MediaType {
  schema?: Schema;
}

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  operationId: string;
  parameters: Parameter[];
  /** Content type of the request body ('application/json' or form), undefined without a body. */
  bodyType: string | undefined;
  bodySchema: Schema | undefined;
  responses: Record<string, { content?: Record<string, MediaType> }>;
}

export interface Document {
  paths: Record<string, Record<string, { operationId?: string; parameters?: Parameter[]; requestBody?: { content: Record<string, MediaType> }; responses?: Operation['responses'] }>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export function operations(doc: Document): Operation[] {
  const result: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const content = op.requestBody?.content ?? {};
      const bodyType = Object.keys(content)[0];
      result.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        operationId: op.operationId ?? `${method} ${path}`,
        parameters: op.parameters ?? [],
        bodyType,
        bodySchema: bodyType ? content[bodyType]?.schema : undefined,
        responses: op.responses ?? {},
      });
    }
  }
  return result;
}

/** The OAuth protocol endpoints, whose errors are RFC 6749's `{error, error_description}`. */
export function isOAuthProtocol(path: string): boolean {
  return /^\/api\/v1\/oauth\/(token|introspect|revoke)$/.test(path);
}

const API_ERROR: Schema = { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } };
const OAUTH_ERROR: Schema = { type: 'object', required: ['error'], properties: { error: { type: 'string' }, error_description: { type: 'string' } } };

/**
 * Why an error answer is outside the contract, or undefined when it fits: its JSON body must match
 * the schema the operation declares for that status, or else the contract's general error shape.
 */
export function errorShapeProblem(op: Operation, status: number, contentType: string | undefined, body: string): string | undefined {
  if (op.path === '/api/v1/oauth/authorize' && contentType?.startsWith('text/html')) return undefined; // an error page for the browser
  if (!contentType?.startsWith('application/json')) return `content-type ${contentType ?? '(none)'} instead of application/json`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'body is not JSON';
  }
  const declared = op.responses[String(status)]?.content?.['application/json']?.schema;
  const generic = isOAuthProtocol(op.path) ? OAUTH_ERROR : API_ERROR;
  const candidates = declared && declared.properties ? [declared, generic] : [generic];
  const problems = candidates.map((schema) => flatShapeProblem(schema, parsed));
  return problems.includes(undefined) ? undefined : problems[0];
}

/** Checks an error body against a flat object schema: required keys present, no others, strings are strings. */
function flatShapeProblem(schema: Schema, value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'body is not an object';
  const properties = schema.properties ?? {};
  const record = value as Record<string, unknown>;
  for (const key of schema.required ?? []) if (!(key in record)) return `missing '${key}'`;
  for (const [key, field] of Object.entries(record)) {
    const expected = properties[key];
    if (!expected) return `unexpected key '${key}' (allowed: ${Object.keys(properties).join(', ')})`;
    if (expected.type === 'string' && typeof field !== 'string') return `'${key}' is not a string`;
  }
  return undefined;
}

/** A plausible value for a schema: required properties only, first alternative, examples when given. */
export function sketch(schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 6) return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.examples && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return sketch(alternatives.find((s) => s.type !== 'null') ?? alternatives[0], depth + 1);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s) => sketch(s, depth + 1) as object));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = sketch(schema.properties?.[key], depth + 1);
      return out;
    }
    case 'array':
      return [sketch(schema.items, depth + 1)];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  }
}

/** Dotted paths of every property the schema names (nested objects included), for field mutations. */
export function fieldPaths(schema: Schema | undefined, prefix: string[] = [], depth = 0): string[][] {
  if (!schema || depth > 4) return [];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.flatMap((s) => fieldPaths(s, prefix, depth + 1));
  const out: string[][] = [];
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    out.push([...prefix, key]);
    out.push(...fieldPaths(child, [...prefix, key], depth + 1));
  }
  return out;
}
