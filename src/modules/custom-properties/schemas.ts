import { Type, type Static, type TSchema } from 'typebox';
import { BoundedInteger, iso, isoOrNull, Name, Nullable } from '../../http/schemas.js';
import type { DefinitionRow } from './repository.js';
import { ENTITY_TYPES, MAX_KEYS, PROPERTY_TYPES } from './values.js';

const Value = Type.Union([Type.String(), Type.Boolean(), Type.Array(Type.String())]);

/**
 * `custom_properties` of a write of a customer, subscription, plan, product, invoice or credit
 * note. Any JSON is let through here: the shared validator (values.ts) answers a wrong value with
 * the key's type and an example, which a schema error could not.
 */
export const CustomPropertiesInput = Type.Record(Type.String(), Type.Unknown(), {
  description:
    `Values by key (at most ${MAX_KEYS}). A key with a definition (GET /api/v1/custom-properties) takes a value of its type: a string for TEXT, URL, EMAIL, ` +
    'SINGLE_SELECT, NUMBER (decimal string), DATE (YYYY-MM-DD) and DATE_TIME (RFC 3339), true or false for BOOLEAN, an array of options for MULTI_SELECT. ' +
    'Other keys are free-form strings. null drops a key. The object replaces the stored one.',
  examples: [{ crm_account_id: '0015g00000XyZ', tier: 'gold' }],
});

/** `custom_properties` as returned on the objects, their list items and webhook payloads. */
export const CustomPropertiesOutput = Type.Record(Type.String(), Value, {
  description: 'Values by key: strings (TEXT, NUMBER, DATE, DATE_TIME, SINGLE_SELECT, URL, EMAIL and free-form keys), booleans, arrays (MULTI_SELECT)',
});

/**
 * Query schema options for a list filtered by `custom_properties[<key>]=<value>`: spread into the
 * list's `Type.Object(..., options)` so those parameters pass the unknown-parameter check.
 */
export const customPropertyFilterQuery = {
  patternProperties: {
    '^custom_properties\\[.+\\]$': Type.String({
      description: 'Only objects whose property <key> holds this value (read as the key\'s type; for MULTI_SELECT, objects holding this option). Repeat for several keys.',
    }),
  },
};

/** A sentence for list descriptions. */
export const FILTER_HELP =
  '`custom_properties[<key>]=<value>` keeps the objects whose custom property holds that value, read as the key\'s type (`true`/`false` for BOOLEAN, ' +
  'one option of a MULTI_SELECT); several such parameters must all match.';

const EntityType = Type.Enum(ENTITY_TYPES, { description: 'The kind of object the property belongs to' });
const PropertyType = Type.Enum(PROPERTY_TYPES, { description: 'How values are checked; fixed at creation' });
const Options = Nullable(Type.Array(Type.String(), { description: 'The choices of a SINGLE_SELECT or MULTI_SELECT (1 to 100 distinct strings); null for the other types' }));
const DefaultValue = Nullable(Type.Unknown({ description: 'A value of the type, set on objects created without the key (and on any write of a required one)' }));

export const DefinitionCreateRequest = Type.Object({
  entity_type: EntityType,
  key: Type.String({ description: 'Letters, digits and underscores (1 to 64); unique per entity type; fixed at creation', examples: ['crm_account_id'] }),
  name: Name(),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  type: PropertyType,
  options: Type.Optional(Options),
  required: Type.Optional(Type.Boolean({ default: false })),
  default_value: Type.Optional(DefaultValue),
  display_order: Type.Optional(BoundedInteger({ minimum: 0, description: 'Lower first (lists, PDFs); default 0' })),
  print_on_pdf: Type.Optional(Type.Boolean({ description: 'INVOICE properties only: the invoice PDF prints the value' })),
}, { additionalProperties: false });

export const DefinitionUpdateRequest = Type.Object({
  name: Type.Optional(Name()),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  options: Type.Optional(Options),
  required: Type.Optional(Type.Boolean()),
  default_value: Type.Optional(DefaultValue),
  display_order: Type.Optional(BoundedInteger({ minimum: 0 })),
  print_on_pdf: Type.Optional(Type.Boolean()),
  // named so that a change answers "key cannot change", not "unknown field"
  key: Type.Optional(Type.Unknown({ description: 'Fixed at creation: any value is a 400' })),
  type: Type.Optional(Type.Unknown({ description: 'Fixed at creation: any value is a 400' })),
  entity_type: Type.Optional(Type.Unknown({ description: 'Fixed at creation: any value is a 400' })),
}, { additionalProperties: false });

export type DefinitionCreateBody = Static<typeof DefinitionCreateRequest>;

export const Definition = Type.Object({
  id: Type.String(),
  entity_type: EntityType,
  key: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  type: PropertyType,
  options: Options,
  required: Type.Boolean(),
  default_value: Nullable(Value as TSchema),
  display_order: Type.Integer(),
  print_on_pdf: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  archived_at: Nullable(Type.String({ format: 'date-time' })),
});

export function definitionToWire(row: DefinitionRow) {
  return {
    id: row.id,
    entity_type: row.entity_type,
    key: row.key,
    name: row.name,
    description: row.description,
    type: row.type,
    options: row.options,
    required: row.required,
    default_value: row.default_value,
    display_order: row.display_order,
    print_on_pdf: row.print_on_pdf,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    archived_at: isoOrNull(row.archived_at),
  };
}
