import type { Clock } from '../../kernel/clock.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { paginationMeta, pageRequest, parseOrderBy, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import type { ProductsService } from '../catalog/index.js';
import type { CustomPropertiesPort } from '../custom-properties/index.js';
import { featuresById, resolvedToWire } from './entitlements.js';
import { planEventData } from './events.js';
import { parseVersionBody, type PlanInputDeps, type VersionBody, type VersionSpec } from './plan-input.js';
import * as repo from './repository.js';
import type { PlanRow, PlanStatus, PlanType, VersionRow } from './repository.js';
import { defaultVersionId, loadView, loadViews, resolveVersion, type PlanView } from './views.js';

export interface CreatePlanBody extends VersionBody {
  name: string;
  product_family_id: string;
  description?: string | null;
  plan_type?: PlanType;
  status?: PlanStatus;
  self_service_rank?: number | null;
  custom_properties?: Record<string, unknown> | null;
}

export interface ReplacePlanBody extends VersionBody {
  name: string;
  description?: string | null;
  status?: PlanStatus | null;
  custom_properties?: Record<string, unknown> | null;
}

export interface PatchPlanBody {
  name?: string | null;
  description?: string | null;
  self_service_rank?: number | null;
  custom_properties?: Record<string, unknown> | null;
}

export interface PlanListQuery {
  product_family_id?: string;
  search?: string;
  status?: PlanStatus[];
  plan_type?: PlanType[];
  order_by?: string;
  page?: number;
  per_page?: number;
  /** `custom_properties[<key>]` parameters, read by the custom-properties port */
  [parameter: string]: unknown;
}

export interface PlansDeps extends PlanInputDeps {
  pool: Pool;
  clock: Clock;
  products: Pick<ProductsService, 'findProduct' | 'findFamily'>;
  properties: CustomPropertiesPort;
}

/** Only DRAFT (stage) and ACTIVE (publish) can be asked for when a version is written. */
function targetStatus(status: PlanStatus | null | undefined, fallback: 'DRAFT' | 'ACTIVE', field: string): 'DRAFT' | 'ACTIVE' {
  const value = status ?? fallback;
  if (value !== 'DRAFT' && value !== 'ACTIVE') throw badRequest(`${field} must be DRAFT or ACTIVE when writing a plan version, got ${value}`);
  return value;
}

function requireName(name: string | null | undefined): string {
  const trimmed = name?.trim();
  if (!trimmed) throw badRequest('name must not be empty');
  return trimmed;
}

export function createPlansService(deps: PlansDeps) {
  const { pool, clock } = deps;
  const findFamily = deps.products.findFamily;

  /**
   * The values a write stores: the body's object replaces the stored one, null empties it, and
   * leaving it out keeps the stored values, checked again (a key defined since must now fit).
   */
  function planProperties(tx: Queryable, tenantId: string, given: Record<string, unknown> | null | undefined, current: PlanRow | null) {
    const proposed = given === undefined ? (current?.custom_properties ?? {}) : (given ?? {});
    return deps.properties.resolve(tx, tenantId, 'PLAN', proposed, { creating: current === null });
  }

  async function writeContents(tx: Queryable, tenantId: string, versionId: string, spec: VersionSpec, copyFrom: string | null, addOnsGiven: boolean): Promise<void> {
    await repo.insertComponents(tx, tenantId, spec.components.map((c, position) => ({ id: newId('priceComponent', clock.now().getTime()), plan_version_id: versionId, position, ...c })));
    const previousAddOns = !addOnsGiven && copyFrom ? await repo.planAddOnsOf(tx, tenantId, [copyFrom]) : [];
    const addOns = addOnsGiven ? spec.add_ons : previousAddOns.map(({ plan_version_id: _v, ...a }) => a);
    await repo.insertPlanAddOns(tx, tenantId, addOns.map((a) => ({ ...a, plan_version_id: versionId })));
    const now = clock.now();
    const entitlements = spec.entitlements ?? (copyFrom ? (await repo.entitlementsOf(tx, tenantId, 'plan_version_id', [copyFrom])).map((e) => ({ feature_id: e.feature_id, value: e.value })) : []);
    await repo.insertEntitlements(tx, tenantId, { planVersionId: versionId }, entitlements.map((e) => ({ id: newId('entitlement', now.getTime()), ...e, created_at: now, updated_at: now })));
  }

  function versionRow(id: string, planId: string, number: number, spec: VersionSpec): VersionRow {
    return {
      id,
      plan_id: planId,
      version: number,
      is_draft: true,
      currency: spec.currency,
      net_terms: spec.net_terms,
      billing_cycles: spec.billing_cycles,
      period_start_day: spec.period_start_day,
      tax_inclusive: spec.tax_inclusive,
      trial_duration_days: spec.trial?.duration_days ?? null,
      trial_is_free: spec.trial?.is_free ?? false,
      trialing_plan_id: spec.trial?.trialing_plan_id ?? null,
      minimum_commitment: spec.minimum_commitment,
      usage_thresholds: spec.usage_thresholds,
      created_at: clock.now(),
      published_at: null,
    };
  }

  /**
   * Makes `version` the plan's published version; older published versions stay for their
   * subscriptions. The plan becomes ACTIVE, or INACTIVE when created so (published, not offered).
   */
  async function publish(tx: Queryable, tenantId: string, plan: PlanRow, version: VersionRow, status: 'ACTIVE' | 'INACTIVE' = 'ACTIVE'): Promise<{ plan: PlanRow; version: VersionRow }> {
    const published: VersionRow = { ...version, is_draft: false, published_at: clock.now() };
    await repo.updateVersion(tx, tenantId, published);
    const next: PlanRow = { ...plan, status, active_version_id: version.id, draft_version_id: null, updated_at: clock.now() };
    await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'plan.published', objectId: plan.id, data: planEventData(next, published) });
    return { plan: next, version: published };
  }

  async function lockPlan(tx: Queryable, tenantId: string, planId: string): Promise<PlanRow> {
    const plan = await repo.findPlan(tx, tenantId, planId, true);
    if (!plan) throw notFound('plan');
    return plan;
  }

  async function createPlan(tenantId: string, body: CreatePlanBody): Promise<PlanView> {
    const name = requireName(body.name);
    const planType = body.plan_type ?? 'STANDARD';
    // DRAFT stages version 1; every other status publishes it (as the reference does), then
    // INACTIVE or ARCHIVED puts the plan in that state, so it is not offered for new
    // subscriptions, and unarchiving (or a PUT that publishes) finds a published version.
    const status: PlanStatus = body.status ?? 'DRAFT';
    return withTx(pool, async (tx) => {
      const family = await findFamily(tx, tenantId, body.product_family_id);
      if (!family) throw badRequest(`product_family_id '${body.product_family_id}' is not a product family of this tenant`);
      const spec = await parseVersionBody(deps, tx, tenantId, body, { planType });
      const customProperties = await planProperties(tx, tenantId, body.custom_properties, null);
      const now = clock.now();
      const planId = newId('plan', now.getTime());
      let version = versionRow(newId('planVersion', now.getTime()), planId, 1, spec);
      let plan: PlanRow = {
        id: planId,
        product_family_id: family.id,
        name,
        description: body.description ?? null,
        plan_type: planType,
        status: 'DRAFT',
        self_service_rank: body.self_service_rank ?? null,
        active_version_id: null,
        draft_version_id: version.id,
        custom_properties: customProperties,
        created_at: now,
        updated_at: now,
        archived_at: null,
      };
      await repo.insertPlan(tx, tenantId, plan);
      await repo.insertVersion(tx, tenantId, version);
      await writeContents(tx, tenantId, version.id, spec, null, true);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'plan.created', objectId: plan.id, data: planEventData({ ...plan, status }, version) });
      if (status !== 'DRAFT') {
        ({ plan, version } = await publish(tx, tenantId, plan, version, status === 'INACTIVE' ? 'INACTIVE' : 'ACTIVE'));
        if (status === 'ARCHIVED') {
          plan = { ...plan, status, archived_at: now };
          await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'plan.archived', objectId: plan.id, data: planEventData(plan, version) });
        }
        await repo.updatePlan(tx, tenantId, plan);
      }
      return loadView(tx, tenantId, plan, version, findFamily);
    });
  }

  /**
   * Replace: a draft is rewritten in place; a plan without a draft gets a new version (the
   * published one is never changed, its subscriptions keep it). The result is published unless
   * `status` is DRAFT; `status` defaults to DRAFT for a never-published plan, ACTIVE otherwise.
   * Omitted `entitlements` and `add_ons` carry over from the version being replaced.
   */
  async function replacePlan(tenantId: string, planId: string, body: ReplacePlanBody): Promise<PlanView> {
    const name = requireName(body.name);
    return withTx(pool, async (tx) => {
      const current = await lockPlan(tx, tenantId, planId);
      let plan = current;
      if (plan.status === 'ARCHIVED') throw conflict('plan is archived; unarchive it before replacing it');
      const status = targetStatus(body.status, plan.active_version_id ? 'ACTIVE' : 'DRAFT', 'status');
      const spec = await parseVersionBody(deps, tx, tenantId, body, { planType: plan.plan_type, planId });
      const customProperties = await planProperties(tx, tenantId, body.custom_properties, plan);
      let version: VersionRow;
      if (plan.draft_version_id) {
        const draft = (await repo.findVersion(tx, tenantId, plan.draft_version_id))!;
        version = { ...versionRow(draft.id, plan.id, draft.version, spec), created_at: draft.created_at };
        await repo.updateVersion(tx, tenantId, version);
        await repo.deleteComponents(tx, tenantId, draft.id);
        if (body.add_ons !== undefined) await repo.deletePlanAddOns(tx, tenantId, draft.id);
        if (spec.entitlements !== undefined) await repo.deleteEntitlements(tx, tenantId, { planVersionId: draft.id });
        await writeContents(tx, tenantId, draft.id, { ...spec, add_ons: body.add_ons === undefined ? [] : spec.add_ons, entitlements: spec.entitlements ?? [] }, null, true);
      } else {
        const number = (await repo.maxVersionNumber(tx, tenantId, plan.id)) + 1;
        version = versionRow(newId('planVersion', clock.now().getTime()), plan.id, number, spec);
        await repo.insertVersion(tx, tenantId, version);
        await writeContents(tx, tenantId, version.id, spec, plan.active_version_id, body.add_ons !== undefined);
        plan = { ...plan, draft_version_id: version.id };
      }
      plan = { ...plan, name, description: body.description === undefined ? plan.description : body.description, custom_properties: customProperties, updated_at: clock.now() };
      const propertiesChanged = JSON.stringify(customProperties) !== JSON.stringify(current.custom_properties);
      if (status === 'ACTIVE') ({ plan, version } = await publish(tx, tenantId, plan, version));
      // a staged draft changes nothing subscribers see, but the plan's values changed at once
      else if (propertiesChanged) await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'plan.updated', objectId: plan.id, data: planEventData(plan, version) });
      await repo.updatePlan(tx, tenantId, plan);
      return loadView(tx, tenantId, plan, version, findFamily);
    });
  }

  /** Plan-level metadata only; prices and version settings change through PUT. */
  async function patchPlan(tenantId: string, planId: string, body: PatchPlanBody): Promise<PlanView> {
    return withTx(pool, async (tx) => {
      const plan = await lockPlan(tx, tenantId, planId);
      const next: PlanRow = {
        ...plan,
        name: body.name === undefined || body.name === null ? plan.name : requireName(body.name),
        description: body.description === undefined ? plan.description : body.description,
        self_service_rank: body.self_service_rank === undefined ? plan.self_service_rank : body.self_service_rank,
        custom_properties: await planProperties(tx, tenantId, body.custom_properties, plan),
        updated_at: clock.now(),
      };
      await repo.updatePlan(tx, tenantId, next);
      const version = (await repo.findVersion(tx, tenantId, defaultVersionId(next)))!;
      // plan.updated: a metadata change (custom properties included) is something a CRM or ledger sync follows
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'plan.updated', objectId: plan.id, data: planEventData(next, version) });
      return loadView(tx, tenantId, next, version, findFamily);
    });
  }

  async function publishPlan(tenantId: string, planId: string): Promise<PlanView> {
    return withTx(pool, async (tx) => {
      const current = await lockPlan(tx, tenantId, planId);
      if (current.status === 'ARCHIVED') throw conflict('plan is archived; unarchive it before publishing');
      if (!current.draft_version_id) throw conflict('plan has no draft version to publish');
      const draft = (await repo.findVersion(tx, tenantId, current.draft_version_id))!;
      const { plan, version } = await publish(tx, tenantId, current, draft);
      await repo.updatePlan(tx, tenantId, plan);
      return loadView(tx, tenantId, plan, version, findFamily);
    });
  }

  async function archivePlan(tenantId: string, planId: string): Promise<void> {
    await withTx(pool, async (tx) => {
      const plan = await lockPlan(tx, tenantId, planId);
      if (plan.status === 'ARCHIVED') return;
      const next: PlanRow = { ...plan, status: 'ARCHIVED', archived_at: clock.now(), updated_at: clock.now() };
      await repo.updatePlan(tx, tenantId, next);
      const version = (await repo.findVersion(tx, tenantId, defaultVersionId(next)))!;
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'plan.archived', objectId: plan.id, data: planEventData(next, version) });
    });
  }

  /** Back to ACTIVE when a version was ever published, else back to DRAFT. */
  async function unarchivePlan(tenantId: string, planId: string): Promise<PlanStatus> {
    return withTx(pool, async (tx) => {
      const plan = await lockPlan(tx, tenantId, planId);
      if (plan.status !== 'ARCHIVED') throw conflict('plan is not archived');
      const status: PlanStatus = plan.active_version_id ? 'ACTIVE' : 'DRAFT';
      await repo.updatePlan(tx, tenantId, { ...plan, status, archived_at: null, updated_at: clock.now() });
      return status;
    });
  }

  async function getPlan(tenantId: string, planId: string, versionSelector?: string): Promise<PlanView> {
    const plan = await repo.findPlan(pool, tenantId, planId);
    if (!plan) throw notFound('plan');
    const version = await resolveVersion(pool, tenantId, plan, versionSelector);
    return loadView(pool, tenantId, plan, version, findFamily);
  }

  async function listPlans(tenantId: string, query: PlanListQuery): Promise<Page<PlanView>> {
    const page = pageRequest(query.page, query.per_page);
    const order = parseOrderBy(query.order_by, ['name', 'status', 'plan_type', 'created_at'] as const, { column: 'created_at', direction: 'desc' });
    const properties = await deps.properties.filter(pool, tenantId, 'PLAN', query);
    const { rows, total } = await repo.listPlans(
      pool,
      tenantId,
      { productFamilyId: query.product_family_id, search: query.search, statuses: query.status, planTypes: query.plan_type, properties },
      order,
      page,
    );
    const versions = new Map((await repo.findVersions(pool, tenantId, rows.map(defaultVersionId))).map((v) => [v.id, v]));
    const views = await loadViews(pool, tenantId, rows.map((plan) => ({ plan, version: versions.get(defaultVersionId(plan))! })), findFamily);
    return { data: views, pagination_meta: paginationMeta(page, total) };
  }

  async function listVersions(tenantId: string, planId: string, query: { page?: number; per_page?: number }): Promise<Page<VersionRow>> {
    const page = pageRequest(query.page, query.per_page);
    if (!(await repo.findPlan(pool, tenantId, planId))) throw notFound('plan');
    const { rows, total } = await repo.listVersions(pool, tenantId, planId, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  async function versionEntitlements(tenantId: string, planVersionId: string) {
    const version = await repo.findVersion(pool, tenantId, planVersionId);
    if (!version) throw notFound('plan version');
    const rows = (await repo.entitlementsOf(pool, tenantId, 'plan_version_id', [planVersionId])).map(({ owner_id: _o, ...row }) => row);
    const features = await featuresById(pool, tenantId, rows.map((r) => r.feature_id));
    return rows.map((row) => resolvedToWire(row, features.get(row.feature_id)));
  }

  return { createPlan, replacePlan, patchPlan, publishPlan, archivePlan, unarchivePlan, getPlan, listPlans, listVersions, versionEntitlements };
}

export type PlansService = ReturnType<typeof createPlansService>;
