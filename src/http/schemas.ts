import { Type, type Static, type TSchema } from 'typebox';
import { Memory } from 'typebox/system';

/** Shape A error body. */
export const ErrorBody = Type.Object({ code: Type.String(), message: Type.String() });
/** Shape B error body, for the operations the spec lists with it. */
export const MessageBody = Type.Object({ message: Type.String() });

export const PaginationMeta = Type.Object({
  page: Type.Integer({ minimum: 0 }),
  per_page: Type.Integer({ minimum: 0 }),
  total_items: Type.Integer({ minimum: 0 }),
  total_pages: Type.Integer({ minimum: 0 }),
});

/**
 * PostgreSQL `integer`'s range. Every integer a path or query takes is compared with, or stored
 * in, such a column (a plan's version number, a page), so a larger one must be refused as a 400
 * naming the parameter before it reaches the database's "out of range" error.
 */
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;

/**
 * An integer of a path or query parameter (or a body field), bounded so the OpenAPI document shows
 * the range and validation answers 400 outside it; `maximum` defaults to INT32_MAX.
 */
export const BoundedInteger = (options: { minimum: number; maximum?: number; description?: string; default?: number }) =>
  Type.Integer({ format: 'int32', maximum: INT32_MAX, ...options });

/** `page`, `per_page` and `order_by` of every list, validated again by kernel/paging for the message. */
export const PageQuery = {
  page: Type.Optional(BoundedInteger({ minimum: 0, description: 'Page number (0-indexed)' })),
  per_page: Type.Optional(BoundedInteger({ minimum: 1, maximum: 100, description: 'Items per page (1-100, default 10)' })),
};

export function orderByQuery(columns: readonly string[], fallback: string) {
  return Type.Optional(
    Type.String({
      description: `Sort order. Format: \`column.direction\`. Allowed columns: ${columns.map((c) => `\`${c}\``).join(', ')}. Direction: \`asc\` or \`desc\`. Default: \`${fallback}\`.`,
    }),
  );
}

export function listResponse(item: TSchema) {
  return Type.Object({ data: Type.Array(item), pagination_meta: PaginationMeta });
}

/**
 * Longest name of a catalog object or customer, in characters. Names are indexed, and a btree
 * entry must stay under ~2,700 bytes: 255 characters fit even at 4 UTF-8 bytes each.
 */
export const NAME_MAX_CHARS = 255;
/** A required name: 1 to NAME_MAX_CHARS characters. */
export const Name = () => Type.String({ minLength: 1, maxLength: NAME_MAX_CHARS });

/**
 * A money, price or quantity on the wire: a plain decimal string (`"49.00"`, `"-0.5"`), checked
 * by kernel/money's parseDecimal. The `decimal` format (OpenAPI format registry) is also what
 * lets a JSON number sent here be answered "must be a decimal string such as ...".
 */
export const DecimalString = (description = 'decimal string, e.g. "49.00"') => Type.String({ format: 'decimal', description, examples: ['49.00'] });

/** Payment terms, in days (as the invoicing entity's own limit, and Lago's). */
export const MAX_NET_TERMS_DAYS = 365;
/** Longest trial, in days (Stripe's limit). */
export const MAX_TRIAL_DAYS = 730;

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Standard error responses an operation documents, in shape A unless told otherwise. */
export function errorResponses(statuses: number[], body: TSchema = ErrorBody): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((status) => [status, body]));
}

export const iso = (value: Date): string => value.toISOString();
export const isoOrNull = (value: Date | null | undefined): string | null => (value ? value.toISOString() : null);

/**
 * `schema` with what the OpenAPI document shows for it: a description (a response's, when used
 * as one) and examples, typed as what the schema describes. A copy: the shared schema is
 * untouched, and what it validates and serializes does not change (both are annotations).
 */
export function documented<T extends TSchema>(schema: T, description: string, ...examples: Static<T>[]): T {
  return Memory.Update(schema, {}, examples.length > 0 ? { description, examples } : { description }) as T;
}

/** The first page of a list holding `items` (of `totalItems` in all), for list examples in the OpenAPI document. */
export function examplePage<T>(items: T[], totalItems = items.length) {
  return { data: items, pagination_meta: { page: 0, per_page: 10, total_items: totalItems, total_pages: Math.ceil(totalItems / 10) } };
}
