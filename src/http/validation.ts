import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { parseLocalDate } from '../domain/dates.js';
import { AppError } from '../kernel/errors.js';
import { atFirstCall } from '../kernel/lazy.js';
import { parseDecimal } from '../kernel/money.js';
import { isJsonApiRoute } from './content-types.js';
import { INT32_MAX, INT32_MIN } from './schemas.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerceTypes ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
    // Errors carry the value and the schema that refused it, for messages that say what was
    // wrong with the value (an impossible date, a number where a decimal string belongs).
    verbose: true,
  });
  addFormats(ajv);
  ajv.addFormat('decimal', { type: 'string', validate: isDecimalText });
  return ajv;
}

function isDecimalText(text: string): boolean {
  try {
    parseDecimal(text);
    return true;
  } catch {
    return false;
  }
}

// Bodies are validated without coercion: a JSON number where a decimal string belongs is an
// error, not silently "49". Query strings and path params are text on the wire, so they coerce.
const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);

/**
 * Fastify calls this for every route part with a schema when the route is registered. Compiling
 * them all then kept ajv's generated code for some 380 validators on the heap (about 5 MB), most
 * of them for routes an instance rarely or never serves (docs/performance.md, "Memory"); each is
 * now compiled at its route's first request and kept. An error in a schema therefore shows at
 * that request (a 500) instead of at start: test/http/route-schemas.test.ts compiles every
 * route's schemas to catch it before.
 *
 * Fastify reads a failed validation's errors from the function's `errors`, as ajv's own
 * functions carry them. It hands ajv's functions the request as parent too (so that a coerced
 * root value could replace it); that does not arise here: query strings and path parameters are
 * objects, and bodies are not coerced.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strictAjv : coercingAjv;
  const compiled = atFirstCall(() => ajv.compile(withIntegerBounds(schema) as object));
  const validate = (data: unknown): boolean => {
    const check = compiled();
    const valid = check(data);
    validate.errors = check.errors;
    return valid;
  };
  validate.errors = undefined as ErrorObject[] | null | undefined;
  return validate;
};


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
    copy.minimum ??= INT32_MIN;
    copy.maximum ??= INT32_MAX;
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
      if (typeof error.data === 'number' && isDecimalSchema(error.parentSchema)) {
        return `${field()} must be a decimal string such as "${decimalExample(error.parentSchema)}", not a JSON number (${part})`;
      }
      return `${field() || part} must be ${String(params.type).replace(',', ' or ')} (${part})`;
    case 'format':
      return `${field() || part} ${describeFormat(String(params.format), error)} (${part})`;
    case 'additionalProperties':
      return `${field(String(params.additionalProperty))} is not a known field (${part})`;
    case 'anyOf':
    case 'oneOf':
      return `${field() || part} does not match any allowed shape (${part})`;
    default:
      return `${field() || part} ${error.message ?? 'is invalid'} (${part})`;
  }
}

const DATE_EXAMPLE = '2026-09-24';
const DATE_TIME_EXAMPLE = '2026-09-24T13:45:00Z';

/** What a value refused by `format` should look like, e.g. `must be a date as YYYY-MM-DD, e.g. 2026-09-24`. */
function describeFormat(format: string, error: ErrorObject): string {
  const value = typeof error.data === 'string' ? error.data : '';
  switch (format) {
    case 'date':
      return isImpossibleDate(value)
        ? `${value} is not a calendar date; expected YYYY-MM-DD, e.g. ${DATE_EXAMPLE}`
        : `must be a date as YYYY-MM-DD, e.g. ${DATE_EXAMPLE}`;
    case 'date-time': {
      const datePart = value.slice(0, 10);
      return isImpossibleDate(datePart)
        ? `${datePart} is not a calendar date; expected RFC 3339 with a time zone, e.g. ${DATE_TIME_EXAMPLE}`
        : `must be a date-time in RFC 3339 with a time zone, e.g. ${DATE_TIME_EXAMPLE}`;
    }
    case 'decimal':
      return `must be a decimal string such as "${decimalExample(error.parentSchema)}"`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** Written YYYY-MM-DD but no day of the calendar (2026-02-30, 2026-13-01). */
function isImpossibleDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  try {
    parseLocalDate(text);
    return false;
  } catch {
    return true;
  }
}

interface StringSchema {
  type?: unknown;
  format?: unknown;
  description?: unknown;
  examples?: unknown;
}

/**
 * A money, price or quantity field: a string schema with the `decimal` format (`DecimalString`
 * in schemas.ts), or one whose description says it holds a decimal, as the module schemas
 * declared before that helper existed.
 */
function isDecimalSchema(schema: unknown): boolean {
  const s = (schema ?? {}) as StringSchema;
  if (s.format === 'decimal') return true;
  return s.type === 'string' && typeof s.description === 'string' && /\bdecimal\b/i.test(s.description);
}

/** The schema's own example: its `examples`, else a quoted decimal in its description ('"0.2" is 20 %'). */
function decimalExample(schema: unknown): string {
  const { examples, description } = (schema ?? {}) as StringSchema;
  if (Array.isArray(examples) && typeof examples[0] === 'string') return examples[0];
  const quoted = typeof description === 'string' ? /"(-?\d+(?:\.\d+)?)"/.exec(description) : null;
  return quoted?.[1] ?? '49.00';
}

interface QuerySchema {
  type?: unknown;
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
  patternProperties?: unknown;
}

/**
 * The query parameters a route names (its properties, and the names its `patternProperties`
 * match, such as `custom_properties[<key>]`), or undefined when its schema takes any other. None without a schema.
 */
function knownQueryParameters(schema: unknown): { names: string[]; patterns: RegExp[] } | undefined {
  if (schema === undefined) return { names: [], patterns: [] };
  const s = schema as QuerySchema;
  if (s.type !== 'object') return undefined;
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) return undefined;
  const patterns = Object.keys((s.patternProperties ?? {}) as object).map((pattern) => new RegExp(pattern));
  return { names: Object.keys(s.properties ?? {}), patterns };
}

/**
 * A query parameter a JSON API route does not know is a 400 naming it, as an unknown body field
 * is: `?limit=5` silently ignored answers the default page size and looks like a bug. A route
 * without a querystring schema takes none. A schema that allows other parameters itself keeps
 * its rule (the OAuth authorization endpoint must ignore unknown ones, RFC 6749 section 3.1).
 */
export function registerUnknownQueryCheck(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const given = Object.keys((request.query as object | undefined) ?? {});
    if (given.length === 0 || !isJsonApiRoute(request)) return;
    const schema = knownQueryParameters(request.routeOptions.schema?.querystring);
    if (!schema) return;
    const known = schema.names;
    const isKnown = (name: string) => known.includes(name) || schema.patterns.some((pattern) => pattern.test(name));
    const unknown = given.filter((name) => !isKnown(name));
    if (unknown.length === 0) return;
    const subject = unknown.length === 1 ? `${unknown[0]} is not a known query parameter` : `${unknown.join(', ')} are not known query parameters`;
    const hint = known.length > 0 ? `known: ${known.join(', ')}` : 'this endpoint takes none';
    throw new AppError('BAD_REQUEST', `${subject}; ${hint} (query)`);
  });
}
