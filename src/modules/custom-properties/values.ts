// The one validator of custom property values (docs/custom-properties.md). Pure: the owning
// modules' writes reach it through the port of service.ts, which loads the tenant's definitions.
import { parseLocalDate } from '../../domain/dates.js';
import { badRequest } from '../../kernel/errors.js';
import { parseDecimal } from '../../kernel/money.js';

export const ENTITY_TYPES = ['CUSTOMER', 'SUBSCRIPTION', 'PLAN', 'PRODUCT', 'INVOICE', 'CREDIT_NOTE'] as const;
export type CustomPropertyEntity = (typeof ENTITY_TYPES)[number];

export const PROPERTY_TYPES = ['TEXT', 'NUMBER', 'BOOLEAN', 'DATE', 'DATE_TIME', 'SINGLE_SELECT', 'MULTI_SELECT', 'URL', 'EMAIL'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

/** A value as stored and returned: text (also numbers, dates, URLs...), a boolean, or the choices of a multi-select. */
export type CustomPropertyValue = string | boolean | string[];
export type CustomPropertyValues = Record<string, CustomPropertyValue>;

/** What the validator needs of a definition. */
export interface PropertyRule {
  key: string;
  type: PropertyType;
  options: string[] | null;
  required: boolean;
  default_value: CustomPropertyValue | null;
  display_order: number;
  archived: boolean;
}

export const KEY_PATTERN = /^[A-Za-z0-9_]{1,64}$/;
/** Every object keeps at most this many keys, defined and free-form together. */
export const MAX_KEYS = 50;
export const MAX_FREE_KEY_CHARS = 100;
export const MAX_TEXT_CHARS = 1000;
const MAX_URL_CHARS = 2000;
const MAX_EMAIL_CHARS = 320;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** What a value of this type looks like, in words and as a JSON example, for error messages. */
export function expectation(rule: Pick<PropertyRule, 'type' | 'options'>): { what: string; example: string } {
  const options = rule.options ?? [];
  const quoted = options.slice(0, 5).map((o) => JSON.stringify(o)).join(', ') + (options.length > 5 ? ', ...' : '');
  switch (rule.type) {
    case 'TEXT': return { what: `a string of at most ${MAX_TEXT_CHARS} characters (type TEXT)`, example: '"Enterprise"' };
    case 'NUMBER': return { what: 'a decimal string (type NUMBER)', example: '"12.5"' };
    case 'BOOLEAN': return { what: 'true or false (type BOOLEAN)', example: 'true' };
    case 'DATE': return { what: 'a YYYY-MM-DD calendar date (type DATE)', example: '"2026-03-31"' };
    case 'DATE_TIME': return { what: 'an RFC 3339 date-time with its offset (type DATE_TIME)', example: '"2026-03-31T09:30:00Z"' };
    case 'SINGLE_SELECT': return { what: `one of ${quoted} (type SINGLE_SELECT)`, example: JSON.stringify(options[0] ?? 'gold') };
    case 'MULTI_SELECT': return { what: `an array of distinct values among ${quoted} (type MULTI_SELECT)`, example: JSON.stringify(options.slice(0, 1)) };
    case 'URL': return { what: 'an absolute http or https URL (type URL)', example: '"https://example.com/contracts/42"' };
    case 'EMAIL': return { what: 'an e-mail address (type EMAIL)', example: '"billing@example.com"' };
  }
}

function refuse(field: string, rule: Pick<PropertyRule, 'type' | 'options'>, value: unknown): never {
  const { what, example } = expectation(rule);
  const got = JSON.stringify(value) ?? String(value);
  throw badRequest(`${field} must be ${what}, e.g. ${example}; got ${got.length > 80 ? `${got.slice(0, 77)}...` : got}`);
}

function isCalendarDate(text: string): boolean {
  try {
    parseLocalDate(text);
    return true;
  } catch {
    return false;
  }
}

function isWebUrl(text: string): boolean {
  if (text.length > MAX_URL_CHARS) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * A value checked against its definition and written in its stored form: numbers without
 * trailing zeros ("12.50" -> "12.5"), date-times in UTC ("2026-03-31T11:30:00+02:00" ->
 * "2026-03-31T09:30:00.000Z"), so equal values are equal text and filters find them.
 */
export function parseValue(rule: Pick<PropertyRule, 'type' | 'options'>, value: unknown, field: string): CustomPropertyValue {
  const fail = () => refuse(field, rule, value);
  if (rule.type === 'BOOLEAN') return typeof value === 'boolean' ? value : fail();
  if (rule.type === 'MULTI_SELECT') {
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !(rule.options ?? []).includes(v))) return fail();
    if (new Set(value).size !== value.length) return fail();
    return [...(value as string[])];
  }
  if (typeof value !== 'string') return fail();
  switch (rule.type) {
    case 'TEXT': return value.length <= MAX_TEXT_CHARS ? value : fail();
    case 'NUMBER':
      try {
        return parseDecimal(value).toFixed();
      } catch {
        return fail();
      }
    case 'DATE': return isCalendarDate(value) ? value : fail();
    case 'DATE_TIME': {
      const match = DATE_TIME.exec(value);
      const at = new Date(value);
      if (!match || !isCalendarDate(match[1]!) || Number.isNaN(at.getTime())) return fail();
      return at.toISOString();
    }
    case 'SINGLE_SELECT': return (rule.options ?? []).includes(value) ? value : fail();
    case 'URL': return isWebUrl(value) ? value : fail();
    case 'EMAIL': return value.length <= MAX_EMAIL_CHARS && EMAIL.test(value) ? value : fail();
  }
}

/** A key no definition names keeps a free-form string, as customers' properties always did. */
function parseFreeForm(key: string, value: unknown): string {
  if (key.length > MAX_FREE_KEY_CHARS) throw badRequest(`custom_properties keys are at most ${MAX_FREE_KEY_CHARS} characters; '${key.slice(0, 20)}...' is longer`);
  if (typeof value !== 'string' || value.length > MAX_TEXT_CHARS) {
    throw badRequest(
      `custom_properties.${key} must be a string of at most ${MAX_TEXT_CHARS} characters (no definition names this key, so its value is free-form text), e.g. "3"; ` +
      'define the key (POST /api/v1/custom-properties) to store another type',
    );
  }
  return value;
}

/**
 * The values an object stores after a write, from the values it would hold (`proposed`: the
 * request's, or the stored ones when the request leaves them alone). Defined keys are checked
 * against their definitions, other keys stay free-form strings; null drops a key. A missing key
 * takes its definition's default on creation, and on any write when it is required; a required
 * key with no default is a 400. Archived definitions are neither required nor defaulted.
 */
export function resolveValues(rules: readonly PropertyRule[], proposed: Record<string, unknown>, options: { creating: boolean }): CustomPropertyValues {
  const byKey = new Map(rules.map((rule) => [rule.key, rule]));
  const out: CustomPropertyValues = {};
  for (const [key, value] of Object.entries(proposed)) {
    if (value === null || value === undefined) continue;
    const rule = byKey.get(key);
    out[key] = rule ? parseValue(rule, value, `custom_properties.${key}`) : parseFreeForm(key, value);
  }
  for (const rule of [...rules].sort((a, b) => a.display_order - b.display_order || a.key.localeCompare(b.key))) {
    if (rule.archived || rule.key in out) continue;
    if (rule.default_value !== null && (options.creating || rule.required)) out[rule.key] = rule.default_value;
    else if (rule.required) {
      const { what, example } = expectation(rule);
      throw badRequest(`custom_properties.${rule.key} is required: ${what}, e.g. {"custom_properties": {"${rule.key}": ${example}}}`);
    }
  }
  if (Object.keys(out).length > MAX_KEYS) throw badRequest(`custom_properties may hold at most ${MAX_KEYS} keys, defined and free-form together`);
  return out;
}

/** The query parameters of a list that filter by a property: `custom_properties[<key>]`. */
export const FILTER_PARAMETER = /^custom_properties\[(.+)\]$/;

/**
 * A list's `custom_properties[<key>]=<value>` parameters as one JSON object the stored values
 * must contain (`@>`, served by each owning table's GIN index), or null when there are none.
 * The text is read as the key's type: "true"/"false" for BOOLEAN, one option for MULTI_SELECT
 * (objects holding it match); keys without a definition compare as text.
 */
export function filterOf(rules: readonly PropertyRule[], query: Record<string, unknown>): CustomPropertyValues | null {
  const byKey = new Map(rules.map((rule) => [rule.key, rule]));
  const out: CustomPropertyValues = {};
  for (const [name, raw] of Object.entries(query)) {
    const key = FILTER_PARAMETER.exec(name)?.[1];
    if (key === undefined) continue;
    const field = `custom_properties[${key}]`;
    if (typeof raw !== 'string') throw badRequest(`${field} may be given once, as text, e.g. ?${field}=gold`);
    const rule = byKey.get(key);
    if (!rule) out[key] = raw;
    else if (rule.type === 'BOOLEAN') out[key] = raw === 'true' ? true : raw === 'false' ? false : refuse(field, rule, raw);
    else if (rule.type === 'MULTI_SELECT') {
      if (!(rule.options ?? []).includes(raw)) throw badRequest(`${field} must be one option of ${expectation(rule).what}, e.g. ?${field}=${rule.options?.[0] ?? 'gold'}`);
      out[key] = [raw];
    } else out[key] = parseValue(rule, raw, field);
  }
  return Object.keys(out).length > 0 ? out : null;
}
