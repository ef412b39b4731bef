// Turns a create/replace body into a validated version specification: settings, priced
// components, attached add-ons and entitlements. Everything a version holds is checked here,
// against the tenant's products, metrics, features, add-ons and plans, inside the caller's tx.
import type { Queryable } from '../../db/pool.js';
import { badRequest } from '../../kernel/errors.js';
import { currencyExponent, parseDecimal } from '../../kernel/money.js';
import type { ProductsService } from '../catalog/index.js';
import { metricExists } from '../metrics/index.js';
import { parseEntitlements, type EntitlementInput } from './entitlements.js';
import { decimalString, feeMetricId, parsePlanFee, type PlanFee } from './fees.js';
import * as repo from './repository.js';
import type { MinimumCommitment, PlanType } from './repository.js';
import { parseUsageThresholds, type UsageThreshold } from './thresholds.js';

/** Which of `ids` are the tenant's unarchived add-ons, or its prices, in the caller's transaction. */
export type ExistingIds = (db: Queryable, tenantId: string, ids: string[]) => Promise<Set<string>>;

export interface PlanInputDeps {
  products: Pick<ProductsService, 'findProduct'>;
  /** Add-ons come after plans in the module order, so the composition root passes their lookups in. */
  addOns: { existingAddOnIds: ExistingIds; existingPriceIds: ExistingIds };
}

export interface VersionBody {
  currency: string;
  components: unknown[];
  add_ons?: { add_on_id: string; price_id?: string | null; max_instances?: number | null; self_serviceable?: boolean | null }[];
  billing?: { billing_cycles?: number | null; net_terms?: number; period_start_day?: number | null } | null;
  entitlements?: unknown[];
  tax_inclusive?: boolean;
  trial?: { duration_days: number; is_free: boolean; trialing_plan_id?: string | null } | null;
  minimum_commitment?: { amount: unknown; scope?: Record<string, unknown> } | null;
  usage_thresholds?: { amount: unknown; recurring?: boolean | null; threshold_display_name?: string | null }[] | null;
}

export interface TrialSettings {
  duration_days: number;
  is_free: boolean;
  /** The plan whose features apply during the trial; null = this plan's own. */
  trialing_plan_id: string | null;
}

/** A plan version's commercial terms, as written (VersionSpec) and as read back (the snapshot). */
export interface VersionTerms {
  currency: string;
  net_terms: number;
  billing_cycles: number | null;
  period_start_day: number | null;
  /** When true, prices include tax: tax is carved out at invoice time instead of added. */
  tax_inclusive: boolean;
  trial: TrialSettings | null;
  minimum_commitment: MinimumCommitment | null;
  /** Spend thresholds (progressive billing); [] = none. Subscriptions copy them at creation. */
  usage_thresholds: UsageThreshold[];
}

export interface VersionSpec extends VersionTerms {
  components: { name: string; product_id: string; fee: PlanFee }[];
  add_ons: Omit<repo.PlanAddOnRow, 'plan_version_id'>[];
  /** undefined = not given (a replace keeps the previous version's). */
  entitlements: EntitlementInput[] | undefined;
}

function int(value: number | null | undefined, path: string, min: number, max = 2 ** 31 - 1): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || value < min || value > max) throw badRequest(`${path} must be an integer between ${min} and ${max}`);
  return value;
}

/** A paid price is any non-zero price; FREE plans may only hold zero prices. */
function paidPriceOf(fee: PlanFee): string | undefined {
  const prices: string[] = [];
  switch (fee.type) {
    case 'RATE':
    case 'SLOT':
      prices.push(...fee.rates.map((r) => r.price));
      break;
    case 'CAPACITY':
      prices.push(...fee.thresholds.flatMap((t) => [t.price, t.per_unit_overage]));
      break;
    case 'USAGE': {
      const p = fee.pricing;
      if (p.type === 'PER_UNIT' || p.type === 'PACKAGE') prices.push(p.rate);
      else if (p.type === 'MATRIX') prices.push(...p.rates.map((r) => r.per_unit_price));
      else prices.push(...p.tiers.flatMap((t) => [t.rate, t.flat_fee ?? '0']));
      break;
    }
    case 'EXTRA_RECURRING':
    case 'ONE_TIME':
      prices.push(fee.unit_price);
  }
  return prices.find((price) => !parseDecimal(price).isZero());
}

export async function parseVersionBody(
  deps: PlanInputDeps,
  db: Queryable,
  tenantId: string,
  body: VersionBody,
  context: { planType: PlanType; planId?: string },
): Promise<VersionSpec> {
  let exponent: number;
  try {
    exponent = currencyExponent(body.currency);
  } catch {
    throw badRequest(`currency must be an ISO 4217 code of three upper-case letters, got '${body.currency}'`);
  }

  const components: VersionSpec['components'] = [];
  for (const [i, raw] of body.components.entries()) {
    const path = `components[${i}]`;
    if (typeof raw !== 'object' || raw === null) throw badRequest(`${path} must be an object`);
    const input = raw as { name?: unknown; product_id?: unknown; fee?: unknown };
    if (typeof input.name !== 'string' || !input.name.trim()) throw badRequest(`${path}.name is required and must be a non-empty string`);
    if (typeof input.product_id !== 'string' || !input.product_id) throw badRequest(`${path}.product_id is required`);
    const product = await deps.products.findProduct(db, tenantId, input.product_id);
    if (!product) throw badRequest(`${path}.product_id '${input.product_id}' is not a product of this tenant`);
    if (product.archived_at) throw badRequest(`${path}.product_id '${input.product_id}' is archived`);
    if (input.fee === undefined) throw badRequest(`${path}.fee is required`);
    const fee = parsePlanFee(input.fee, `${path}.fee`, product.fee_structure);
    const metricId = feeMetricId(fee);
    if (metricId && !(await metricExists(db, tenantId, metricId))) {
      throw badRequest(`${path}.fee.metric_id '${metricId}' is not a billable metric of this tenant`);
    }
    if (context.planType === 'FREE') {
      const paid = paidPriceOf(fee);
      if (paid) throw badRequest(`${path}.fee holds the price "${paid}" but a FREE plan may only have zero prices`);
    }
    components.push({ name: input.name.trim(), product_id: product.id, fee });
  }

  const billing = body.billing ?? {};
  const trial = body.trial ?? null;
  if (trial?.trialing_plan_id) {
    if (trial.trialing_plan_id === context.planId) throw badRequest('trial.trialing_plan_id must be another plan');
    if (!(await repo.findPlan(db, tenantId, trial.trialing_plan_id))) throw badRequest(`trial.trialing_plan_id '${trial.trialing_plan_id}' is not a plan of this tenant`);
  }

  let minimum: MinimumCommitment | null = null;
  if (body.minimum_commitment) {
    const raw = decimalString(body.minimum_commitment.amount, 'minimum_commitment.amount');
    if (parseDecimal(raw).decimalPlaces() > exponent) throw badRequest(`minimum_commitment.amount has more than ${exponent} decimals for ${body.currency}`);
    minimum = { amount: raw, scope: body.minimum_commitment.scope ?? {} };
  }

  const addOns: VersionSpec['add_ons'] = [];
  const attachments = body.add_ons ?? [];
  const found = await deps.addOns.existingAddOnIds(db, tenantId, attachments.map((a) => a.add_on_id));
  const prices = await deps.addOns.existingPriceIds(db, tenantId, attachments.flatMap((a) => (a.price_id ? [a.price_id] : [])));
  for (const [i, a] of attachments.entries()) {
    if (!found.has(a.add_on_id)) throw badRequest(`add_ons[${i}].add_on_id '${a.add_on_id}' is not an active add-on of this tenant`);
    if (addOns.some((x) => x.add_on_id === a.add_on_id)) throw badRequest(`add_ons[${i}].add_on_id '${a.add_on_id}' is attached twice`);
    if (a.price_id && !prices.has(a.price_id)) throw badRequest(`add_ons[${i}].price_id '${a.price_id}' is not a price of this tenant`);
    addOns.push({
      add_on_id: a.add_on_id,
      price_id: a.price_id ?? null,
      max_instances: int(a.max_instances, `add_ons[${i}].max_instances`, 1),
      self_serviceable: a.self_serviceable ?? null,
    });
  }

  return {
    currency: body.currency,
    net_terms: int(billing.net_terms, 'billing.net_terms', 0, 365) ?? 0,
    billing_cycles: int(billing.billing_cycles, 'billing.billing_cycles', 1),
    period_start_day: int(billing.period_start_day, 'billing.period_start_day', 1, 31),
    tax_inclusive: body.tax_inclusive ?? false,
    trial: trial ? { duration_days: int(trial.duration_days, 'trial.duration_days', 0) ?? 0, is_free: trial.is_free, trialing_plan_id: trial.trialing_plan_id ?? null } : null,
    minimum_commitment: minimum,
    usage_thresholds: parseUsageThresholds(body.usage_thresholds ?? [], body.currency),
    components,
    add_ons: addOns,
    entitlements: body.entitlements === undefined ? undefined : await parseEntitlements(db, tenantId, body.entitlements, 'entitlements'),
  };
}
