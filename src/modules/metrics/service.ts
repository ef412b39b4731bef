import type { Clock } from '../../kernel/clock.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { paginationMeta, parseOrderBy, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import { findProduct, findProductFamily } from '../catalog/index.js';
import {
  AGGREGATION_TYPES,
  checkAggregation,
  checkGroupBy,
  parseSegmentationMatrix,
  parseUnitConversion,
  requireKey,
  type AggregationType,
} from './definition.js';
import { metricEventData } from './events.js';
import * as repo from './repository.js';
import type { MetricRow } from './repository.js';

export interface CreateMetricInput {
  name: string;
  code: string;
  description?: string | null;
  aggregation_type: string;
  aggregation_key?: string | null;
  product_family_id: string;
  product_id?: string | null;
  segmentation_matrix?: unknown;
  unit_conversion?: unknown;
  usage_group_key?: string | null;
}

/** PATCH body as received: fields other than these four are refused as immutable. */
export type UpdateMetricInput = Record<string, unknown>;

const MUTABLE_FIELDS = ['name', 'description', 'segmentation_matrix', 'unit_conversion'];
const IMMUTABLE_FIELDS = ['code', 'aggregation_type', 'aggregation_key', 'product_family_id', 'product_id', 'usage_group_key'];

export interface ListMetricsQuery {
  product_family_id?: string;
  search?: string;
  order_by?: string;
  page?: number;
  per_page?: number;
}

function requireName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest('name must be a non-empty string');
  return value.trim();
}

export function createMetricsService(deps: { pool: Pool; clock: Clock }) {
  const { pool, clock } = deps;

  async function create(tenantId: string, input: CreateMetricInput): Promise<MetricRow> {
    const name = requireName(input.name);
    const code = requireKey(input.code, 'code');
    if (!AGGREGATION_TYPES.includes(input.aggregation_type as AggregationType)) {
      throw badRequest(`aggregation_type must be one of ${AGGREGATION_TYPES.join(', ')}`);
    }
    const aggregationType = input.aggregation_type as AggregationType;
    const aggregationKey = checkAggregation(aggregationType, input.aggregation_key);
    const matrix = input.segmentation_matrix == null ? null : parseSegmentationMatrix(input.segmentation_matrix);
    const conversion = input.unit_conversion == null ? null : parseUnitConversion(input.unit_conversion);
    const usageGroupKey = input.usage_group_key == null ? null : requireKey(input.usage_group_key, 'usage_group_key');
    checkGroupBy(matrix, usageGroupKey);
    return withTx(pool, async (tx) => {
      const familyId = (await findProductFamily(tx, tenantId, input.product_family_id))?.id;
      if (!familyId) throw badRequest(`product_family_id '${input.product_family_id}' is not a product family of this tenant`);
      if (input.product_id != null) {
        const productFamily = (await findProduct(tx, tenantId, input.product_id))?.product_family_id;
        if (!productFamily) throw badRequest(`product_id '${input.product_id}' is not a product of this tenant`);
        if (productFamily !== familyId) throw badRequest(`product_id '${input.product_id}' belongs to another product family than product_family_id`);
      }
      const row: MetricRow = {
        id: newId('metric', clock.now().getTime()),
        product_family_id: familyId,
        product_id: input.product_id ?? null,
        name,
        description: input.description ?? null,
        code,
        aggregation_type: aggregationType,
        aggregation_key: aggregationKey,
        unit_conversion_factor: conversion?.factor ?? null,
        unit_conversion_rounding: conversion?.rounding ?? null,
        segmentation_matrix: matrix,
        usage_group_key: usageGroupKey,
        created_at: clock.now(),
        archived_at: null,
      };
      await repo.insertMetric(tx, tenantId, row);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'metric.created', objectId: row.id, data: metricEventData(row) });
      return row;
    });
  }

  async function get(tenantId: string, metricId: string): Promise<MetricRow> {
    const row = await repo.findMetric(pool, tenantId, metricId);
    if (!row) throw notFound('metric');
    return row;
  }

  async function list(tenantId: string, query: ListMetricsQuery): Promise<Page<MetricRow>> {
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy(query.order_by, ['name', 'code', 'created_at'] as const, { column: 'name', direction: 'asc' });
    const { rows, total } = await repo.listMetrics(pool, tenantId, { productFamilyId: query.product_family_id, search: query.search }, order, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  /** Partial update; a field set to null is cleared (description, segmentation, unit conversion). */
  async function update(tenantId: string, metricId: string, input: UpdateMetricInput): Promise<MetricRow> {
    for (const field of Object.keys(input)) {
      if (IMMUTABLE_FIELDS.includes(field)) throw badRequest(`${field} is immutable: create a new metric to change it`);
      if (!MUTABLE_FIELDS.includes(field)) throw badRequest(`${field} is not a field of a metric update`);
    }
    return withTx(pool, async (tx) => {
      const current = await repo.findMetric(tx, tenantId, metricId, true);
      if (!current) throw notFound('metric');
      const next: MetricRow = { ...current };
      if (input.name !== undefined && input.name !== null) next.name = requireName(input.name);
      if (input.description !== undefined) {
        if (input.description !== null && typeof input.description !== 'string') throw badRequest('description must be a string or null');
        next.description = input.description;
      }
      if (input.segmentation_matrix !== undefined) {
        next.segmentation_matrix = input.segmentation_matrix === null ? null : parseSegmentationMatrix(input.segmentation_matrix);
        checkGroupBy(next.segmentation_matrix, next.usage_group_key);
      }
      if (input.unit_conversion !== undefined) {
        const conversion = input.unit_conversion === null ? null : parseUnitConversion(input.unit_conversion);
        next.unit_conversion_factor = conversion?.factor ?? null;
        next.unit_conversion_rounding = conversion?.rounding ?? null;
      }
      await repo.updateMetric(tx, tenantId, next);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'metric.updated', objectId: next.id, data: metricEventData(next) });
      return next;
    });
  }

  /**
   * Archiving hides the metric from new bindings (products, features) but plans already billing
   * it keep doing so. Repeating the current state is a no-op without an event. Unarchiving
   * emits `metric.updated` (the reference has no `metric.unarchived` kind).
   */
  async function setArchived(tenantId: string, metricId: string, archived: boolean): Promise<void> {
    await withTx(pool, async (tx) => {
      const current = await repo.findMetric(tx, tenantId, metricId, true);
      if (!current) throw notFound('metric');
      if ((current.archived_at !== null) === archived) return;
      const next = { ...current, archived_at: archived ? clock.now() : null };
      await repo.updateMetric(tx, tenantId, next);
      await writeOutboxEvent(scoped(tx, tenantId), clock, {
        type: archived ? 'metric.archived' : 'metric.updated',
        objectId: next.id,
        data: metricEventData(next),
      });
    });
  }

  return {
    create,
    get,
    list,
    update,
    archive: (tenantId: string, metricId: string) => setArchived(tenantId, metricId, true),
    unarchive: (tenantId: string, metricId: string) => setArchived(tenantId, metricId, false),
  };
}

export type MetricsService = ReturnType<typeof createMetricsService>;

