import type { Clock } from '../../kernel/clock.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { pageRequest, paginationMeta, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { isUniqueViolation, withTx } from '../../db/tx.js';
import * as repo from './repository.js';
import type { DefinitionRow } from './repository.js';
import {
  FILTER_PARAMETER, filterOf, KEY_PATTERN, parseValue, resolveValues,
  type CustomPropertyEntity, type CustomPropertyValue, type CustomPropertyValues, type PropertyRule, type PropertyType,
} from './values.js';

export interface DefinitionCreateInput {
  entity_type: CustomPropertyEntity;
  key: string;
  name: string;
  description?: string | null;
  type: PropertyType;
  options?: string[] | null;
  required?: boolean;
  default_value?: unknown;
  display_order?: number;
  print_on_pdf?: boolean;
}

/** key, type and entity_type are accepted only to answer a 400 that names them. */
export interface DefinitionUpdateInput {
  name?: string;
  description?: string | null;
  options?: string[] | null;
  required?: boolean;
  default_value?: unknown;
  display_order?: number;
  print_on_pdf?: boolean;
  key?: unknown;
  type?: unknown;
  entity_type?: unknown;
}

/**
 * What the owning modules (customers, subscriptions, plans, products, invoices, credit notes)
 * call on every write and list, in their own transaction: the composition root passes it to them.
 */
export interface CustomPropertiesPort {
  /** The values to store after a write (values.ts `resolveValues`), or a 400 naming `custom_properties.<key>`. */
  resolve(db: Queryable, tenantId: string, entity: CustomPropertyEntity, proposed: Record<string, unknown>, options: { creating: boolean }): Promise<CustomPropertyValues>;
  /** A list's `custom_properties[<key>]` parameters as the object stored values must contain, or null. */
  filter(db: Queryable, tenantId: string, entity: CustomPropertyEntity, query: object): Promise<CustomPropertyValues | null>;
  /** The values a PDF prints (definitions marked print_on_pdf, not archived), by display order, as text. */
  printable(db: Queryable, tenantId: string, entity: CustomPropertyEntity, values: Record<string, unknown>): Promise<{ name: string; value: string }[]>;
}

const SELECTS: readonly PropertyType[] = ['SINGLE_SELECT', 'MULTI_SELECT'];
const MAX_OPTIONS = 100;
const MAX_OPTION_CHARS = 100;

const ruleOf = (row: DefinitionRow): PropertyRule => ({
  key: row.key, type: row.type, options: row.options, required: row.required, default_value: row.default_value,
  display_order: row.display_order, archived: row.archived_at !== null,
});

function checkOptions(type: PropertyType, options: string[] | null | undefined): string[] | null {
  if (!SELECTS.includes(type)) {
    if (options !== null && options !== undefined) throw badRequest(`options are only for SINGLE_SELECT and MULTI_SELECT properties; leave them out for ${type}`);
    return null;
  }
  if (!options || options.length === 0) throw badRequest(`options must list the choices of a ${type} property, e.g. ["bronze", "silver", "gold"]`);
  if (options.length > MAX_OPTIONS) throw badRequest(`options may list at most ${MAX_OPTIONS} choices`);
  options.forEach((option, index) => {
    if (!option.trim() || option.length > MAX_OPTION_CHARS) throw badRequest(`options[${index}] must be 1 to ${MAX_OPTION_CHARS} characters, not blank`);
  });
  const duplicate = options.find((option, index) => options.indexOf(option) !== index);
  if (duplicate !== undefined) throw badRequest(`options must be distinct; '${duplicate}' is listed twice`);
  return options;
}

function checkDefault(row: Pick<DefinitionRow, 'type' | 'options'>, value: unknown): CustomPropertyValue | null {
  return value === null || value === undefined ? null : parseValue(row, value, 'default_value');
}

function checkPrint(entity: CustomPropertyEntity, print: boolean): boolean {
  if (print && entity !== 'INVOICE') throw badRequest(`print_on_pdf is only for INVOICE properties (the invoice PDF prints them); this one is for ${entity}`);
  return print;
}

function checkName(name: string): string {
  if (!name.trim()) throw badRequest('name must not be blank, e.g. "CRM account id"');
  return name.trim();
}

export function createCustomPropertiesService(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;

  async function requireDefinition(db: Queryable, tenantId: string, id: string, lock = false): Promise<DefinitionRow> {
    const row = await repo.findDefinition(db, tenantId, id, lock);
    if (!row) throw notFound('custom property');
    return row;
  }

  async function insert(tenantId: string, row: DefinitionRow): Promise<DefinitionRow> {
    try {
      await repo.insertDefinition(pool, tenantId, row);
    } catch (error) {
      if (isUniqueViolation(error, 'custom_property_definitions_key')) {
        throw conflict(`key '${row.key}' is already a ${row.entity_type} property of this tenant (archived ones keep their key); choose another key`);
      }
      throw error;
    }
    return row;
  }

  async function createDefinition(tenantId: string, input: DefinitionCreateInput): Promise<DefinitionRow> {
    if (!KEY_PATTERN.test(input.key)) throw badRequest(`key must be 1 to 64 letters, digits or underscores, e.g. "crm_account_id"; got '${input.key.slice(0, 80)}'`);
    const now = clock.now();
    const options = checkOptions(input.type, input.options);
    const row: DefinitionRow = {
      id: newId('customProperty', now.getTime()),
      entity_type: input.entity_type,
      key: input.key,
      name: checkName(input.name),
      description: input.description ?? null,
      type: input.type,
      options,
      required: input.required ?? false,
      default_value: checkDefault({ type: input.type, options }, input.default_value),
      display_order: input.display_order ?? 0,
      print_on_pdf: checkPrint(input.entity_type, input.print_on_pdf ?? false),
      created_at: now,
      updated_at: now,
      archived_at: null,
    };
    return insert(tenantId, row);
  }

  async function updateDefinition(tenantId: string, id: string, input: DefinitionUpdateInput): Promise<DefinitionRow> {
    for (const fixed of ['key', 'type', 'entity_type'] as const) {
      if (input[fixed] !== undefined) {
        throw badRequest(`${fixed} cannot change: stored values were written under it; archive this property and create another (POST /api/v1/custom-properties)`);
      }
    }
    return withTx(pool, async (tx) => {
      const current = await requireDefinition(tx, tenantId, id, true);
      const options = input.options === undefined ? current.options : checkOptions(current.type, input.options);
      const next: DefinitionRow = {
        ...current,
        name: input.name === undefined ? current.name : checkName(input.name),
        description: input.description === undefined ? current.description : input.description,
        options,
        required: input.required ?? current.required,
        // new options must still hold the default
        default_value: checkDefault({ type: current.type, options }, input.default_value === undefined ? current.default_value : input.default_value),
        display_order: input.display_order ?? current.display_order,
        print_on_pdf: checkPrint(current.entity_type, input.print_on_pdf ?? current.print_on_pdf),
        updated_at: clock.now(),
      };
      await repo.updateDefinition(tx, tenantId, next);
      return next;
    });
  }

  /** Archived: no longer required nor defaulted, values stay on the objects and keep being checked against the type. */
  async function setArchived(tenantId: string, id: string, archived: boolean): Promise<DefinitionRow> {
    return withTx(pool, async (tx) => {
      const current = await requireDefinition(tx, tenantId, id, true);
      if ((current.archived_at !== null) === archived) return current;
      const next = { ...current, archived_at: archived ? clock.now() : null, updated_at: clock.now() };
      await repo.updateDefinition(tx, tenantId, next);
      return next;
    });
  }

  async function listDefinitions(tenantId: string, query: { entity_type?: CustomPropertyEntity; archived?: boolean; page?: number; per_page?: number }): Promise<Page<DefinitionRow>> {
    const page = pageRequest(query.page, query.per_page);
    const { rows, total } = await repo.listDefinitions(pool, tenantId, { entity: query.entity_type, archived: query.archived }, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  const port: CustomPropertiesPort = {
    async resolve(db, tenantId, entity, proposed, options) {
      const rules = (await repo.definitionsOf(db, tenantId, entity)).map(ruleOf);
      return resolveValues(rules, proposed, options);
    },
    async filter(db, tenantId, entity, query) {
      // most lists have no such parameter: no statement then
      if (!Object.keys(query).some((name) => FILTER_PARAMETER.test(name))) return null;
      const rules = (await repo.definitionsOf(db, tenantId, entity)).map(ruleOf);
      return filterOf(rules, query as Record<string, unknown>);
    },
    async printable(db, tenantId, entity, values) {
      const printed = (await repo.definitionsOf(db, tenantId, entity)).filter((d) => d.print_on_pdf && d.archived_at === null && values[d.key] !== undefined && values[d.key] !== null);
      return printed.map((d) => {
        const value = values[d.key];
        return { name: d.name, value: Array.isArray(value) ? value.join(', ') : typeof value === 'boolean' ? (value ? 'Yes' : 'No') : String(value) };
      });
    },
  };

  return {
    createDefinition,
    getDefinition: (tenantId: string, id: string) => requireDefinition(pool, tenantId, id),
    listDefinitions,
    updateDefinition,
    archiveDefinition: (tenantId: string, id: string) => setArchived(tenantId, id, true),
    unarchiveDefinition: (tenantId: string, id: string) => setArchived(tenantId, id, false),
    port,
  };
}

export type CustomPropertiesService = ReturnType<typeof createCustomPropertiesService>;
