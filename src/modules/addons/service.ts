import type { Clock } from '../../kernel/clock.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { currencyExponent } from '../../kernel/money.js';
import { paginationMeta, pageRequest, parseOrderBy, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import type { ProductsService } from '../catalog/index.js';
import { featureIdsOfProduct } from '../features/index.js';
import {
  deleteEntitlements,
  entitlementsOf,
  featuresById,
  insertEntitlements,
  parseEntitlements,
  parsePlanFee,
  resolvedToWire,
  type EntitlementRow,
} from '../plans/index.js';
import { addOnEventData } from './events.js';
import * as repo from './repository.js';
import type { AddOnRow, AddOnWithPrice, PriceRow } from './repository.js';

export interface PriceInput {
  currency: string;
  fee: unknown;
}

export interface CreateAddOnBody {
  name: string;
  product_id: string;
  price_id?: string | null;
  price?: PriceInput | null;
  description?: string | null;
  self_serviceable?: boolean;
  max_instances_per_subscription?: number | null;
  entitlements?: unknown[];
}

export interface UpdateAddOnBody {
  name?: string | null;
  description?: string | null;
  price_id?: string | null;
  price?: PriceInput | null;
  self_serviceable?: boolean | null;
  max_instances_per_subscription?: number | null;
  entitlements?: unknown[];
}

export type AddOnView = AddOnWithPrice & { entitlements: EntitlementRow[] };

export function createAddOnsService(deps: { pool: Pool; clock: Clock; products: Pick<ProductsService, 'findProduct'> }) {
  const { pool, clock } = deps;

  async function withEntitlements(db: Queryable, tenantId: string, rows: AddOnWithPrice[]): Promise<AddOnView[]> {
    const entitlements = await entitlementsOf(db, tenantId, 'add_on_id', rows.map((r) => r.id));
    return rows.map((row) => ({ ...row, entitlements: entitlements.filter((e) => e.owner_id === row.id).map(({ owner_id: _o, ...e }) => e) }));
  }

  /** The add-on's price: an existing one of the same product, or a new one from `price`. */
  async function resolvePrice(tx: Queryable, tenantId: string, productId: string, priceId: string | null | undefined, price: PriceInput | null | undefined): Promise<PriceRow> {
    if (priceId && price) throw badRequest('give either price_id or price, not both');
    if (priceId) {
      const existing = await repo.findPrice(tx, tenantId, priceId);
      if (!existing) throw badRequest(`price_id '${priceId}' is not a price of this tenant`);
      if (existing.product_id !== productId) throw badRequest(`price_id '${priceId}' is a price of another product`);
      return existing;
    }
    if (!price) throw badRequest('price_id or price is required');
    try {
      currencyExponent(price.currency);
    } catch {
      throw badRequest(`price.currency must be an ISO 4217 code of three upper-case letters, got '${price.currency}'`);
    }
    const product = (await deps.products.findProduct(tx, tenantId, productId))!;
    const row: PriceRow = {
      id: newId('price', clock.now().getTime()),
      product_id: productId,
      currency: price.currency,
      fee: parsePlanFee(price.fee, 'price.fee', product.fee_structure),
      created_at: clock.now(),
    };
    await repo.insertPrice(tx, tenantId, row);
    return row;
  }

  function maxInstances(value: number | null | undefined): number | null {
    if (value === undefined || value === null) return null;
    if (!Number.isInteger(value) || value < 1) throw badRequest('max_instances_per_subscription must be an integer >= 1');
    return value;
  }

  async function writeEntitlements(tx: Queryable, tenantId: string, addOnId: string, raw: unknown[] | undefined, replace: boolean): Promise<void> {
    if (raw === undefined) return;
    const parsed = await parseEntitlements(tx, tenantId, raw, 'entitlements');
    if (replace) await deleteEntitlements(tx, tenantId, { addOnId });
    const now = clock.now();
    await insertEntitlements(tx, tenantId, { addOnId }, parsed.map((e) => ({ id: newId('entitlement', now.getTime()), ...e, created_at: now, updated_at: now })));
  }

  async function createAddOn(tenantId: string, body: CreateAddOnBody): Promise<AddOnView> {
    const name = body.name.trim();
    if (!name) throw badRequest('name must not be empty');
    return withTx(pool, async (tx) => {
      const product = await deps.products.findProduct(tx, tenantId, body.product_id);
      if (!product) throw badRequest(`product_id '${body.product_id}' is not a product of this tenant`);
      if (product.archived_at) throw badRequest(`product_id '${body.product_id}' is archived`);
      const price = await resolvePrice(tx, tenantId, product.id, body.price_id, body.price);
      const now = clock.now();
      const row: AddOnRow = {
        id: newId('addOn', now.getTime()),
        name,
        description: body.description ?? null,
        product_id: product.id,
        price_id: price.id,
        self_serviceable: body.self_serviceable ?? false,
        max_instances_per_subscription: maxInstances(body.max_instances_per_subscription),
        created_at: now,
        updated_at: now,
        archived_at: null,
      };
      await repo.insertAddOn(tx, tenantId, row);
      await writeEntitlements(tx, tenantId, row.id, body.entitlements, false);
      const addOn = { ...row, price };
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'addon.created', objectId: row.id, data: addOnEventData(addOn) });
      return (await withEntitlements(tx, tenantId, [addOn]))[0]!;
    });
  }

  async function getAddOn(tenantId: string, addOnId: string): Promise<AddOnView> {
    const row = await repo.findAddOn(pool, tenantId, addOnId);
    if (!row) throw notFound('add-on');
    return (await withEntitlements(pool, tenantId, [row]))[0]!;
  }

  async function listAddOns(
    tenantId: string,
    query: { search?: string; currency?: string; include_archived?: boolean; order_by?: string; page?: number; per_page?: number },
  ): Promise<Page<AddOnView>> {
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy(query.order_by, ['name', 'created_at'] as const, { column: 'created_at', direction: 'desc' });
    const { rows, total } = await repo.listAddOns(pool, tenantId, { search: query.search, currency: query.currency, includeArchived: query.include_archived }, order, page);
    return { data: await withEntitlements(pool, tenantId, rows), pagination_meta: paginationMeta(page, total) };
  }

  async function updateAddOn(tenantId: string, addOnId: string, body: UpdateAddOnBody): Promise<AddOnView> {
    return withTx(pool, async (tx) => {
      const current = await repo.findAddOn(tx, tenantId, addOnId, true);
      if (!current) throw notFound('add-on');
      if (body.name !== undefined && body.name !== null && !body.name.trim()) throw badRequest('name must not be empty');
      const price = body.price_id || body.price ? await resolvePrice(tx, tenantId, current.product_id, body.price_id, body.price) : current.price;
      const next: AddOnWithPrice = {
        ...current,
        name: body.name?.trim() || current.name,
        description: body.description === undefined ? current.description : body.description,
        price_id: price.id,
        price,
        self_serviceable: body.self_serviceable ?? current.self_serviceable,
        max_instances_per_subscription:
          body.max_instances_per_subscription === undefined ? current.max_instances_per_subscription : maxInstances(body.max_instances_per_subscription),
        updated_at: clock.now(),
      };
      await repo.updateAddOn(tx, tenantId, next);
      await writeEntitlements(tx, tenantId, next.id, body.entitlements, true);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'addon.updated', objectId: next.id, data: addOnEventData(next) });
      return (await withEntitlements(tx, tenantId, [next]))[0]!;
    });
  }

  async function setArchived(tenantId: string, addOnId: string, archived: boolean): Promise<void> {
    await withTx(pool, async (tx) => {
      const current = await repo.findAddOn(tx, tenantId, addOnId, true);
      if (!current) throw notFound('add-on');
      if ((current.archived_at !== null) === archived) return;
      const next = { ...current, archived_at: archived ? clock.now() : null, updated_at: clock.now() };
      await repo.updateAddOn(tx, tenantId, next);
      if (archived) await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'addon.archived', objectId: next.id, data: addOnEventData(next) });
    });
  }

  async function addOnEntitlements(tenantId: string, addOnId: string) {
    const addOn = await getAddOn(tenantId, addOnId);
    const features = await featuresById(pool, tenantId, addOn.entitlements.map((e) => e.feature_id));
    return addOn.entitlements.map((e) => resolvedToWire(e, features.get(e.feature_id)));
  }

  /** The feature-level default entitlements of the product's features. */
  async function productEntitlements(tenantId: string, productId: string) {
    if (!(await deps.products.findProduct(pool, tenantId, productId))) throw notFound('product');
    const features = await featuresById(pool, tenantId, await featureIdsOfProduct(pool, tenantId, productId));
    return [...features.values()].flatMap((feature) =>
      feature.default_entitlement ? [resolvedToWire({ feature_id: feature.id, ...feature.default_entitlement }, feature)] : [],
    );
  }

  return {
    createAddOn,
    getAddOn,
    listAddOns,
    updateAddOn,
    archiveAddOn: (tenantId: string, addOnId: string) => setArchived(tenantId, addOnId, true),
    unarchiveAddOn: (tenantId: string, addOnId: string) => setArchived(tenantId, addOnId, false),
    addOnEntitlements,
    productEntitlements,
  };
}

export type AddOnsService = ReturnType<typeof createAddOnsService>;
