import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import type { CustomPropertyEntity, CustomPropertyValue, PropertyType } from './values.js';

export interface DefinitionRow {
  id: string;
  entity_type: CustomPropertyEntity;
  key: string;
  name: string;
  description: string | null;
  type: PropertyType;
  options: string[] | null;
  required: boolean;
  default_value: CustomPropertyValue | null;
  display_order: number;
  print_on_pdf: boolean;
  created_at: Date;
  updated_at: Date;
  archived_at: Date | null;
}

const COLUMNS = `id, entity_type, key, name, description, type, options, required, default_value, display_order, print_on_pdf,
  created_at, updated_at, archived_at`;
const ORDER = 'entity_type, display_order, key';
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

export async function insertDefinition(db: Queryable, tenantId: string, row: DefinitionRow): Promise<void> {
  await scoped(db, tenantId).query(
    `INSERT INTO custom_property_definitions (tenant_id, id, entity_type, key, name, description, type, options, required, default_value,
       display_order, print_on_pdf, created_at, updated_at, archived_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [row.id, row.entity_type, row.key, row.name, row.description, row.type, json(row.options), row.required, json(row.default_value),
      row.display_order, row.print_on_pdf, row.created_at, row.updated_at, row.archived_at],
  );
}

/** Writes what an update may change (never the entity type, key or type). */
export async function updateDefinition(db: Queryable, tenantId: string, row: DefinitionRow): Promise<void> {
  await scoped(db, tenantId).query(
    `UPDATE custom_property_definitions SET name = $3, description = $4, options = $5, required = $6, default_value = $7,
       display_order = $8, print_on_pdf = $9, updated_at = $10, archived_at = $11
     WHERE tenant_id = $1 AND id = $2`,
    [row.id, row.name, row.description, json(row.options), row.required, json(row.default_value), row.display_order, row.print_on_pdf,
      row.updated_at, row.archived_at],
  );
}

export async function findDefinition(db: Queryable, tenantId: string, id: string, lock = false): Promise<DefinitionRow | undefined> {
  return scoped(db, tenantId).one<DefinitionRow>(
    `SELECT ${COLUMNS} FROM custom_property_definitions WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
}

/** Every definition of one entity type, archived ones included (their keys keep their types). */
export async function definitionsOf(db: Queryable, tenantId: string, entity: CustomPropertyEntity): Promise<DefinitionRow[]> {
  return scoped(db, tenantId).query<DefinitionRow>(
    `SELECT ${COLUMNS} FROM custom_property_definitions WHERE tenant_id = $1 AND entity_type = $2 ORDER BY ${ORDER}`,
    [entity],
  );
}

export async function listDefinitions(
  db: Queryable,
  tenantId: string,
  filter: { entity?: CustomPropertyEntity; archived?: boolean },
  page: PageRequest,
): Promise<{ rows: DefinitionRow[]; total: number }> {
  // `archived` absent lists both; true only archived ones; false only active ones.
  const where = `tenant_id = $1 AND ($2::text IS NULL OR entity_type = $2) AND ($3::boolean IS NULL OR (archived_at IS NOT NULL) = $3)`;
  return scoped(db, tenantId).page<DefinitionRow>(
    { columns: COLUMNS, from: 'custom_property_definitions', where, orderBy: `${ORDER}, id` },
    [filter.entity ?? null, filter.archived ?? null],
    page,
  );
}

/**
 * SQL for the defaults of an entity type's active definitions as one jsonb object, for an owner's
 * multi-row INSERT of objects it creates itself (billing runs' invoices), where a statement per
 * object would cost too much: a read-only relation this module publishes (docs/architecture.md,
 * "Table owners"). The tenant is the statement's `$1`.
 */
export function defaultValuesSql(entity: CustomPropertyEntity): string {
  return `(SELECT coalesce(jsonb_object_agg(cpd.key, cpd.default_value), '{}'::jsonb) FROM custom_property_definitions cpd
    WHERE cpd.tenant_id = $1 AND cpd.entity_type = '${entity}' AND cpd.archived_at IS NULL AND cpd.default_value IS NOT NULL)`;
}
