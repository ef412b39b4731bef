// Read side: a plan shown at one of its versions, loaded in bulk for lists.
import type { Queryable } from '../../db/pool.js';
import { INT32_MAX } from '../../http/schemas.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import type { EntitlementRow } from './entitlements.js';
import * as repo from './repository.js';
import type { ComponentRow, PlanAddOnRow, PlanRow, VersionRow } from './repository.js';

export type FindFamily = (db: Queryable, tenantId: string, id: string) => Promise<{ id: string; name: string } | undefined>;

export interface PlanView {
  plan: PlanRow;
  version: VersionRow;
  family: { id: string; name: string };
  components: ComponentRow[];
  addOns: PlanAddOnRow[];
  entitlements: EntitlementRow[];
}

/** The version a plan is shown at by default: its published version, else its draft. */
export function defaultVersionId(plan: PlanRow): string {
  return (plan.active_version_id ?? plan.draft_version_id)!;
}

/** `?version=`: omitted = default, `draft` = the pending draft, a number = that version. */
export async function resolveVersion(db: Queryable, tenantId: string, plan: PlanRow, selector: string | undefined): Promise<VersionRow> {
  let version: VersionRow | undefined;
  if (selector === undefined || selector === '') {
    version = await repo.findVersion(db, tenantId, defaultVersionId(plan));
  } else if (selector.toLowerCase() === 'draft') {
    if (!plan.draft_version_id) throw notFound('draft version of this plan');
    version = await repo.findVersion(db, tenantId, plan.draft_version_id);
  } else if (/^\d+$/.test(selector) && Number(selector) <= INT32_MAX) {
    version = await repo.findVersionByNumber(db, tenantId, plan.id, Number(selector));
    if (!version) throw notFound(`version ${selector} of this plan`);
  } else {
    // A number past PostgreSQL's integer range is refused here, not by the database (a 500).
    throw badRequest(`version must be 'draft' or a version number from 1 to ${INT32_MAX}, e.g. 2, got '${selector}' (query)`);
  }
  if (!version) throw notFound('plan version');
  return version;
}

export async function loadViews(
  db: Queryable,
  tenantId: string,
  pairs: { plan: PlanRow; version: VersionRow }[],
  findFamily: FindFamily,
): Promise<PlanView[]> {
  const versionIds = pairs.map((p) => p.version.id);
  const [components, addOns, entitlements] = await Promise.all([
    repo.componentsOf(db, tenantId, versionIds),
    repo.planAddOnsOf(db, tenantId, versionIds),
    repo.entitlementsOf(db, tenantId, 'plan_version_id', versionIds),
  ]);
  const families = new Map<string, { id: string; name: string }>();
  for (const familyId of new Set(pairs.map((p) => p.plan.product_family_id))) {
    const family = await findFamily(db, tenantId, familyId);
    families.set(familyId, family ? { id: family.id, name: family.name } : { id: familyId, name: '' });
  }
  return pairs.map(({ plan, version }) => ({
    plan,
    version,
    family: families.get(plan.product_family_id)!,
    components: components.filter((c) => c.plan_version_id === version.id),
    addOns: addOns.filter((a) => a.plan_version_id === version.id),
    entitlements: entitlements.filter((e) => e.owner_id === version.id).map(({ owner_id: _owner, ...row }) => row),
  }));
}

export async function loadView(db: Queryable, tenantId: string, plan: PlanRow, version: VersionRow, findFamily: FindFamily): Promise<PlanView> {
  return (await loadViews(db, tenantId, [{ plan, version }], findFamily))[0]!;
}
