import type { Clock } from '../../kernel/clock.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { paginationMeta, parseOrderBy, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import type { CustomPropertiesPort } from '../custom-properties/index.js';
import { withTx } from '../../db/tx.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import * as repo from './repository.js';
import type { ProductFamilyRow, ProductRow } from './repository.js';
import { parseFeeStructure } from './fees.js';
import { productEventData } from './events.js';

export interface ListQuery {
  page?: number;
  per_page?: number;
  order_by?: string;
  search?: string;
}

export interface CreateProductInput {
  name: string;
  description?: string | null;
  product_family_id: string;
  catalog?: boolean;
  fee_structure: unknown;
  custom_properties?: Record<string, unknown> | null;
}

export interface UpdateProductInput {
  name?: string | null;
  description?: string | null;
  fee_structure?: unknown;
  custom_properties?: Record<string, unknown> | null;
}

/** Checks a metric id a fee is bound to; the catalog's metrics part supplies it. */
export type MetricExists = (db: Queryable, tenantId: string, metricId: string) => Promise<boolean>;

export function createProductsService(deps: { pool: Pool; clock: Clock; metricExists?: MetricExists; properties: CustomPropertiesPort }) {
  const { pool, clock } = deps;

  async function requireFamily(db: Queryable, tenantId: string, idOrAlias: string, field?: string): Promise<ProductFamilyRow> {
    const family = await repo.findFamily(db, tenantId, idOrAlias);
    if (!family) throw field ? badRequest(`${field} '${idOrAlias}' is not a product family of this tenant`) : notFound('product family');
    return family;
  }

  async function checkMetric(db: Queryable, tenantId: string, fee: ReturnType<typeof parseFeeStructure>): Promise<void> {
    if ((fee.type === 'USAGE' || fee.type === 'CAPACITY') && deps.metricExists && !(await deps.metricExists(db, tenantId, fee.metric_id))) {
      throw badRequest(`fee_structure.metric_id '${fee.metric_id}' is not a billable metric of this tenant`);
    }
  }

  async function createFamily(tenantId: string, input: { name: string; alias?: string | null }): Promise<ProductFamilyRow> {
    if (!input.name.trim()) throw badRequest('name must not be empty');
    const row: ProductFamilyRow = {
      id: newId('productFamily', clock.now().getTime()),
      name: input.name.trim(),
      alias: input.alias ?? null,
      created_at: clock.now(),
    };
    try {
      await repo.insertFamily(pool, tenantId, row);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw badRequest(`alias '${input.alias}' is already used by another product family`);
      throw error;
    }
    return row;
  }

  async function listFamilies(tenantId: string, query: ListQuery): Promise<Page<ProductFamilyRow>> {
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy(query.order_by, ['name', 'created_at'] as const, { column: 'created_at', direction: 'desc' });
    const { rows, total } = await repo.listFamilies(pool, tenantId, { search: query.search }, order, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  async function createProduct(tenantId: string, input: CreateProductInput): Promise<ProductRow> {
    if (!input.name.trim()) throw badRequest('name must not be empty');
    const fee = parseFeeStructure(input.fee_structure);
    return withTx(pool, async (tx) => {
      const family = await requireFamily(tx, tenantId, input.product_family_id, 'product_family_id');
      await checkMetric(tx, tenantId, fee);
      const row: ProductRow = {
        id: newId('product', clock.now().getTime()),
        product_family_id: family.id,
        name: input.name.trim(),
        description: input.description ?? null,
        catalog: input.catalog ?? true,
        fee_type: fee.type,
        fee_structure: fee,
        custom_properties: await deps.properties.resolve(tx, tenantId, 'PRODUCT', input.custom_properties ?? {}, { creating: true }),
        created_at: clock.now(),
        archived_at: null,
      };
      await repo.insertProduct(tx, tenantId, row);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'product.created', objectId: row.id, data: productEventData(row) });
      return row;
    });
  }

  async function getProduct(tenantId: string, productId: string): Promise<ProductRow> {
    const row = await repo.findProduct(pool, tenantId, productId);
    if (!row) throw notFound('product');
    return row;
  }

  async function listProducts(tenantId: string, query: ListQuery & { product_family_id?: string; include_archived?: boolean }): Promise<Page<ProductRow>> {
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy(query.order_by, ['name', 'created_at'] as const, { column: 'name', direction: 'asc' });
    const properties = await deps.properties.filter(pool, tenantId, 'PRODUCT', query);
    const { rows, total } = await repo.listProducts(
      pool,
      tenantId,
      { productFamilyId: query.product_family_id, search: query.search, includeArchived: query.include_archived, properties },
      order,
      page,
    );
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  /** Partial update; the fee type is immutable (a new structure must keep the same `type`). */
  async function updateProduct(tenantId: string, productId: string, input: UpdateProductInput): Promise<ProductRow> {
    return withTx(pool, async (tx) => {
      const current = await repo.findProduct(tx, tenantId, productId, true);
      if (!current) throw notFound('product');
      let fee = current.fee_structure;
      if (input.fee_structure !== undefined && input.fee_structure !== null) {
        fee = parseFeeStructure(input.fee_structure);
        if (fee.type !== current.fee_type) throw badRequest(`fee_structure.type is immutable: the product is ${current.fee_type}`);
        await checkMetric(tx, tenantId, fee);
      }
      if (input.name !== undefined && input.name !== null && !input.name.trim()) throw badRequest('name must not be empty');
      const next: ProductRow = {
        ...current,
        name: input.name?.trim() || current.name,
        description: input.description === undefined ? current.description : input.description,
        fee_structure: fee,
        // left out: the stored values, checked again (a key defined since must now hold a value of its type)
        custom_properties: await deps.properties.resolve(tx, tenantId, 'PRODUCT', input.custom_properties === undefined ? current.custom_properties : (input.custom_properties ?? {}), { creating: false }),
      };
      await repo.updateProduct(tx, tenantId, productId, next);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'product.updated', objectId: next.id, data: productEventData(next) });
      return next;
    });
  }

  async function setArchived(tenantId: string, productId: string, archived: boolean): Promise<void> {
    await withTx(pool, async (tx) => {
      const current = await repo.findProduct(tx, tenantId, productId, true);
      if (!current) throw notFound('product');
      if ((current.archived_at !== null) === archived) return;
      const next = { ...current, archived_at: archived ? clock.now() : null };
      await repo.updateProduct(tx, tenantId, productId, next);
      if (archived) {
        await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'product.archived', objectId: next.id, data: productEventData(next) });
      }
    });
  }

  return {
    createFamily,
    getFamily: (tenantId: string, idOrAlias: string) => requireFamily(pool, tenantId, idOrAlias),
    listFamilies,
    createProduct,
    getProduct,
    listProducts,
    updateProduct,
    archiveProduct: (tenantId: string, productId: string) => setArchived(tenantId, productId, true),
    unarchiveProduct: (tenantId: string, productId: string) => setArchived(tenantId, productId, false),
    /** For other modules: the product if it belongs to the tenant, inside their transaction. */
    findProduct: (db: Queryable, tenantId: string, productId: string) => repo.findProduct(db, tenantId, productId),
    findFamily: (db: Queryable, tenantId: string, idOrAlias: string) => repo.findFamily(db, tenantId, idOrAlias),
  };
}

export type ProductsService = ReturnType<typeof createProductsService>;
