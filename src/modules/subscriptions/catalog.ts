// What subscriptions need from the catalog (plans, add-ons, features, coupons), as a port. The
// composition root wires it; `catalog-plans.ts` is the default, built on the plans module's exports.
// Coupons are not part of it: subscriptions use the coupons module's index directly.
import type { Queryable } from '../../db/pool.js';
import type { PlanFee, UsageThreshold } from '../plans/index.js';

export interface CatalogPlanVersion {
  planId: string;
  planName: string;
  planDescription: string | null;
  planType: 'STANDARD' | 'FREE' | 'CUSTOM';
  planStatus: string;
  versionId: string;
  version: number;
  isDraft: boolean;
  currency: string;
  netTerms: number;
  periodStartDay: number | null;
  trialDurationDays: number | null;
  trialIsFree: boolean;
  trialingPlanId: string | null;
  /** Spend thresholds a new subscription copies (absent: none). */
  usageThresholds?: UsageThreshold[];
  components: { id: string; name: string; productId: string; fee: PlanFee }[];
  /** Add-ons offered with this version (price and max overrides applied). */
  addOns: { addOnId: string; priceId: string | null; maxInstances: number | null }[];
}

export interface CatalogAddOn {
  id: string;
  name: string;
  productId: string;
  priceId: string;
  currency: string;
  fee: PlanFee;
  maxInstances: number | null;
  archived: boolean;
}

/** Entitlement value as the reference's EntitlementValue (tagged by `type`). */
export type EntitlementValue =
  | { type: 'BOOLEAN'; enabled: boolean }
  | { type: 'METERED'; enabled: boolean; limit: string | null; reset_period: Record<string, unknown> };

export interface CatalogFeature {
  id: string;
  code: string;
  name: string;
  status: string;
  metricId: string | null;
  product: { id: string; name: string } | null;
  /** The feature-level default entitlement (lowest priority), if any. */
  defaultValue: EntitlementValue | null;
}

export interface SubscriptionCatalog {
  /** A version by id, or a plan's current published version (or a given version number). */
  findPlanVersion(db: Queryable, tenantId: string, selector: { planVersionId: string } | { planId: string; version?: number }): Promise<CatalogPlanVersion | undefined>;
  findAddOn(db: Queryable, tenantId: string, addOnId: string): Promise<CatalogAddOn | undefined>;
  /** Entitlements granted by plan versions and by add-ons, read together: owner id -> feature id -> value. */
  entitlementsOf(
    db: Queryable,
    tenantId: string,
    owners: { planVersionIds: readonly string[]; addOnIds: readonly string[] },
  ): Promise<{ planVersions: Map<string, Map<string, EntitlementValue>>; addOns: Map<string, Map<string, EntitlementValue>> }>;
  /** Every active feature of the tenant. */
  features(db: Queryable, tenantId: string): Promise<CatalogFeature[]>;
}
