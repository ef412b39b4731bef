import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerceTypes ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

// Bodies are validated without coercion: a JSON number where a decimal string belongs is an
// error, not silently "49". Query strings and path params are text on the wire, so they coerce.
const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strictAjv : coercingAjv;
  return ajv.compile(withIntegerBounds(schema) as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

const INT4_MIN = -2_147_483_648;
const INT4_MAX = 2_147_483_647;

/**
 * A copy of the schema where every integer without its own bounds is bounded to PostgreSQL's
 * `integer` range, so an oversized count is a 400 naming the field rather than the database's
 * out-of-range error. (The route schemas themselves, and so the OpenAPI document, are unchanged.)
 */
function withIntegerBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withIntegerBounds);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = withIntegerBounds(value);
  if (copy.type === 'integer') {
    copy.minimum ??= INT4_MIN;
    copy.maximum ??= INT4_MAX;
  }
  return copy;
}

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** Turns the first ajv error into a sentence naming the field, e.g. `body.fee_structure.type must be one of RATE, SLOT`. */
export function describeValidationError(errors: ErrorObject[], context: string | undefined): string {
  const error = errors[0];
  if (!error) return 'invalid request';
  const part = PART_NAMES[context ?? ''] ?? context ?? 'request';
  // `/components/0/fee/rates/0/price` -> `components[0].fee.rates[0].price`
  const pointer = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`))
    .join('')
    .replace(/^\./, '');
  const field = (extra?: string) => (pointer && extra ? `${pointer}.${extra}` : pointer || extra || '');
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${field(String(params.missingProperty))} is required (${part})`;
    case 'enum':
      return `${field() || part} must be one of ${(params.allowedValues as unknown[]).join(', ')} (${part})`;
    case 'type':
      return `${field() || part} must be ${String(params.type).replace(',', ' or ')} (${part})`;
    case 'additionalProperties':
      return `${field(String(params.additionalProperty))} is not a known field (${part})`;
    case 'anyOf':
    case 'oneOf':
      return `${field() || part} does not match any allowed shape (${part})`;
    default:
      return `${field() || part} ${error.message ?? 'is invalid'} (${part})`;
  }
}
