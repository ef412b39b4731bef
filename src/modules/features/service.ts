import type { Clock } from '../../kernel/clock.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { paginationMeta, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { isUniqueViolation, withTx } from '../../db/tx.js';
import { findProduct } from '../catalog/index.js';
import * as repo from './repository.js';
import type { FeatureRow } from './repository.js';
import { parseEntitlementValue, parseFeatureCode, parseFeatureType, type FeatureStatus } from './values.js';

export interface CreateFeatureInput {
  code: string;
  name: string;
  description?: string | null;
  feature_type: unknown;
  product_id?: string | null;
  /** The feature-level default entitlement: `{value}`. */
  entitlement?: { value: unknown } | null;
}

export interface ListFeaturesQuery {
  statuses?: FeatureStatus[];
  product_id?: string;
  search?: string;
  page?: number;
  per_page?: number;
}

/** Checks that a metric exists, is the tenant's and is not archived; the metrics module supplies it. */
export type MetricExists = (db: Queryable, tenantId: string, metricId: string) => Promise<boolean>;

/** The spec's PATCH: only name and description change. */
const IMMUTABLE_FIELDS = ['code', 'feature_type', 'product', 'product_id'];
const MUTABLE_FIELDS = ['name', 'description'];

type StatusMove = 'enable' | 'disable' | 'archive' | 'unarchive';

/**
 * Status moves. `null` = already there (no-op); a string = refused with that reason.
 * An archived feature must be unarchived (to ACTIVE) before it can be enabled or disabled, so
 * archiving stays the one deliberate way to retire a feature.
 */
export function nextStatus(current: FeatureStatus, move: StatusMove): FeatureStatus | null | { refused: string } {
  switch (move) {
    case 'enable':
      if (current === 'ARCHIVED') return { refused: 'feature is archived; unarchive it first' };
      return current === 'ACTIVE' ? null : 'ACTIVE';
    case 'disable':
      if (current === 'ARCHIVED') return { refused: 'feature is archived; unarchive it first' };
      return current === 'DISABLED' ? null : 'DISABLED';
    case 'archive':
      return current === 'ARCHIVED' ? null : 'ARCHIVED';
    case 'unarchive':
      return current === 'ARCHIVED' ? 'ACTIVE' : null;
  }
}

function requireName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest('name must be a non-empty string');
  return value.trim();
}

export function createFeaturesService(deps: { pool: Pool; clock: Clock; metricExists?: MetricExists }) {
  const { pool, clock } = deps;

  async function requireFeature(db: Queryable, tenantId: string, idOrCode: string, lock = false): Promise<FeatureRow> {
    const row = await repo.findFeature(db, tenantId, idOrCode, lock);
    if (!row) throw notFound('feature');
    return row;
  }

  async function create(tenantId: string, input: CreateFeatureInput): Promise<FeatureRow> {
    const code = parseFeatureCode(input.code);
    const name = requireName(input.name);
    const featureType = parseFeatureType(input.feature_type);
    const value = input.entitlement == null ? null : parseEntitlementValue(featureType.type, input.entitlement.value, 'entitlement.value');
    return withTx(pool, async (tx) => {
      if (featureType.type === 'METERED' && deps.metricExists && !(await deps.metricExists(tx, tenantId, featureType.metric_id))) {
        throw badRequest(`feature_type.metric_id '${featureType.metric_id}' is not an active billable metric of this tenant`);
      }
      let productName: string | null = null;
      if (input.product_id != null) {
        productName = (await findProduct(tx, tenantId, input.product_id))?.name ?? null;
        if (productName === null) throw badRequest(`product_id '${input.product_id}' is not a product of this tenant`);
      }
      const now = clock.now();
      const row: FeatureRow = {
        id: newId('feature', now.getTime()),
        code,
        name,
        description: input.description ?? null,
        status: 'ACTIVE',
        feature_type: featureType.type,
        metric_id: featureType.type === 'METERED' ? featureType.metric_id : null,
        product_id: input.product_id ?? null,
        product_name: productName,
        default_entitlement_id: value ? newId('entitlement', now.getTime()) : null,
        default_entitlement_value: value,
        default_entitlement_created_at: value ? now : null,
        default_entitlement_updated_at: value ? now : null,
        created_at: now,
        updated_at: now,
      };
      try {
        await repo.insertFeature(tx, tenantId, row);
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict(`code '${code}' is already used by another feature`);
        throw error;
      }
      return row;
    });
  }

  async function list(tenantId: string, query: ListFeaturesQuery): Promise<Page<FeatureRow>> {
    const page = pageRequest(query.page, query.per_page);
    const { rows, total } = await repo.listFeatures(pool, tenantId, { statuses: query.statuses, productId: query.product_id, search: query.search }, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  async function update(tenantId: string, idOrCode: string, input: Record<string, unknown>): Promise<FeatureRow> {
    for (const field of Object.keys(input)) {
      if (IMMUTABLE_FIELDS.includes(field)) throw badRequest(`${field} is immutable: only name and description can be changed`);
      if (!MUTABLE_FIELDS.includes(field)) throw badRequest(`${field} is not a field of a feature update; only name and description can be changed`);
    }
    return withTx(pool, async (tx) => {
      const current = await requireFeature(tx, tenantId, idOrCode, true);
      const next: FeatureRow = { ...current, updated_at: clock.now() };
      if (input.name !== undefined && input.name !== null) next.name = requireName(input.name);
      if (input.description !== undefined) {
        if (input.description !== null && typeof input.description !== 'string') throw badRequest('description must be a string or null');
        next.description = input.description;
      }
      await repo.updateFeature(tx, tenantId, next);
      return next;
    });
  }

  async function move(tenantId: string, idOrCode: string, action: StatusMove): Promise<FeatureRow> {
    return withTx(pool, async (tx) => {
      const current = await requireFeature(tx, tenantId, idOrCode, true);
      const status = nextStatus(current.status, action);
      if (status === null) return current;
      if (typeof status === 'object') throw conflict(status.refused);
      const next: FeatureRow = { ...current, status, updated_at: clock.now() };
      await repo.updateFeature(tx, tenantId, next);
      return next;
    });
  }

  /** Sets (creates or replaces) the feature-level default entitlement; its id is kept on replace. */
  async function setDefaultEntitlement(tenantId: string, idOrCode: string, rawValue: unknown): Promise<FeatureRow> {
    return withTx(pool, async (tx) => {
      const current = await requireFeature(tx, tenantId, idOrCode, true);
      const value = parseEntitlementValue(current.feature_type, rawValue, 'value');
      const now = clock.now();
      const next: FeatureRow = {
        ...current,
        default_entitlement_id: current.default_entitlement_id ?? newId('entitlement', now.getTime()),
        default_entitlement_value: value,
        default_entitlement_created_at: current.default_entitlement_created_at ?? now,
        default_entitlement_updated_at: now,
        updated_at: now,
      };
      await repo.updateFeature(tx, tenantId, next);
      return next;
    });
  }

  async function removeDefaultEntitlement(tenantId: string, idOrCode: string): Promise<FeatureRow> {
    return withTx(pool, async (tx) => {
      const current = await requireFeature(tx, tenantId, idOrCode, true);
      const next: FeatureRow = {
        ...current,
        default_entitlement_id: null,
        default_entitlement_value: null,
        default_entitlement_created_at: null,
        default_entitlement_updated_at: null,
        updated_at: clock.now(),
      };
      await repo.updateFeature(tx, tenantId, next);
      return next;
    });
  }

  return {
    create,
    get: (tenantId: string, idOrCode: string) => requireFeature(pool, tenantId, idOrCode),
    list,
    update,
    enable: (tenantId: string, idOrCode: string) => move(tenantId, idOrCode, 'enable'),
    disable: (tenantId: string, idOrCode: string) => move(tenantId, idOrCode, 'disable'),
    archive: (tenantId: string, idOrCode: string) => move(tenantId, idOrCode, 'archive'),
    unarchive: (tenantId: string, idOrCode: string) => move(tenantId, idOrCode, 'unarchive'),
    setDefaultEntitlement,
    removeDefaultEntitlement,
  };
}

export type FeaturesService = ReturnType<typeof createFeaturesService>;
