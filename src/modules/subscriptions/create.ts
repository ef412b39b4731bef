// Creating a subscription: resolve customer and plan version, snapshot the fees, place the
// subscription on the status machine. Runs inside the caller's transaction so checkout
// completion can reuse it.
import { today, type Clock } from '../../kernel/clock.js';
import { badRequest } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { addDays, compareDates, nextTransitionOn, parseLocalDate, shortestTerm, statusOn } from '../../domain/index.js';
import { findCustomer, type CustomerRow } from '../customers/index.js';
import { checkCouponApplicable, redeemCoupon, type Coupon } from '../coupons/index.js';
import type { CatalogPlanVersion, SubscriptionCatalog } from './catalog.js';
import { checkSlots, mrrMinor, overrideFee, resolveFee, type FeeParameters } from './fees.js';
import * as repo from './repository.js';
import type { AddOnRow, ComponentRow, SubscriptionRow } from './repository.js';
import { createHash } from 'node:crypto';
import { subscriptionEventData } from './events.js';
import type { SubscriptionRecord } from './records.js';
import { parseUsageThresholds } from '../plans/index.js';
import { thresholdsOrNull } from './thresholds.js';
import type { CustomPropertiesPort } from '../custom-properties/index.js';

export interface CreateSubscriptionInput {
  customer_id_or_alias: string;
  plan_id?: string;
  plan_version_id?: string;
  version?: number;
  start_date: string;
  end_date?: string | null;
  billing_start_date?: string | null;
  billing_day_anchor?: number | null;
  net_terms?: number | null;
  trial_days?: number | null;
  activation_condition?: 'ON_START' | 'ON_CHECKOUT' | 'MANUAL';
  coupon_codes?: string[];
  add_ons?: { add_on_id: string; quantity?: number; customization?: ({ type?: string } & FeeParameters) | null }[];
  price_components?: {
    parameterized_components?: { component_id: string; parameters: FeeParameters }[];
    overridden_components?: { component_id: string; name?: string | null; fee: Record<string, unknown> }[];
    remove_components?: string[];
  } | null;
  skip_past_invoices?: boolean;
  invoice_memo?: string | null;
  purchase_order?: string | null;
  auto_advance_invoices?: boolean | null;
  charge_automatically?: boolean | null;
  payment_methods_config?: Record<string, unknown> | null;
  /** Omitted: the plan version's; [] or null: none. */
  usage_thresholds?: { amount: unknown; recurring?: boolean | null; threshold_display_name?: string | null }[] | null;
  custom_properties?: Record<string, unknown> | null;
}

/**
 * The names of the request fields `prepareSubscription` checks. A subscription request and a
 * checkout session ask for the same things under different names; every error names the field
 * the caller sent, so no caller rewrites messages.
 */
export interface RequestFields {
  customer: string;
  trialDays: string;
  priceComponents: string;
  /** The field of the `index`-th entry of `coupon_codes`. */
  coupon(index: number): string;
}

const SUBSCRIPTION_FIELDS: RequestFields = {
  customer: 'customer_id_or_alias',
  trialDays: 'trial_days',
  priceComponents: 'price_components',
  coupon: (index) => `coupon_codes[${index}]`,
};

function checkDate(value: string, field: string): void {
  try {
    parseLocalDate(value);
  } catch {
    throw badRequest(`${field} must be a date YYYY-MM-DD, got '${value}'`);
  }
}

/** Resolves the add-ons requested for a subscription into snapshot rows starting `from`. */
export async function resolveAddOns(
  db: Queryable,
  tenantId: string,
  catalog: SubscriptionCatalog,
  version: { currency: string; addOns: { addOnId: string; maxInstances: number | null }[] },
  requested: NonNullable<CreateSubscriptionInput['add_ons']>,
  subscriptionId: string,
  from: string,
  now: Date,
  field = 'add_ons',
): Promise<AddOnRow[]> {
  const rows: AddOnRow[] = [];
  for (const [index, item] of requested.entries()) {
    const path = `${field}[${index}]`;
    const offered = version.addOns.find((a) => a.addOnId === item.add_on_id);
    const addOn = await catalog.findAddOn(db, tenantId, item.add_on_id);
    if (!addOn || addOn.archived) throw badRequest(`${path}.add_on_id '${item.add_on_id}' is not an add-on of this tenant`);
    if (!offered) throw badRequest(`${path}.add_on_id '${item.add_on_id}' is not offered with this plan version`);
    if (addOn.currency !== version.currency) throw badRequest(`${path}.add_on_id is priced in ${addOn.currency}, the plan in ${version.currency}`);
    const quantity = item.quantity ?? 1;
    const max = offered.maxInstances ?? addOn.maxInstances;
    if (!Number.isInteger(quantity) || quantity < 1) throw badRequest(`${path}.quantity must be a whole number >= 1`);
    if (max !== null && quantity > max) throw badRequest(`${path}.quantity must be at most ${max} (max instances per subscription)`);
    const resolved = resolveFee(addOn.fee, item.customization ?? {}, `${path}.customization`);
    rows.push({
      id: newId('subscriptionAddOn', now.getTime()), subscription_id: subscriptionId, add_on_id: addOn.id, product_id: addOn.productId,
      price_id: addOn.priceId, name: addOn.name, fee: resolved.fee, period: resolved.period, quantity, effective_from: from, effective_to: null, created_at: now,
    });
  }
  return rows;
}

/** Everything a new subscription will be, computed without writing anything. */
export interface PreparedSubscription {
  customer: CustomerRow;
  version: CatalogPlanVersion;
  row: SubscriptionRow;
  components: ComponentRow[];
  addOns: AddOnRow[];
  /** Coupons that apply now, in request order (redeemed when the subscription is written). */
  coupons: { field: string; codeOrId: string; coupon: Coupon }[];
}

/**
 * Validates a creation request and resolves it into rows, reading only (customer lock aside):
 * checkout sessions run it at creation to price what the customer is shown, and again at
 * completion to check that nothing changed.
 */
export async function prepareSubscription(
  tx: Queryable,
  deps: { clock: Clock; catalog: SubscriptionCatalog; properties: CustomPropertiesPort },
  tenantId: string,
  input: CreateSubscriptionInput,
  origin: { checkoutSessionId?: string; fields?: RequestFields } = {},
): Promise<PreparedSubscription> {
  const { clock, catalog } = deps;
  const fields = origin.fields ?? SUBSCRIPTION_FIELDS;
  const now = clock.now();
  const todayDate = today(clock);
  checkDate(input.start_date, 'start_date');
  if (input.end_date) checkDate(input.end_date, 'end_date');
  if (input.billing_start_date) checkDate(input.billing_start_date, 'billing_start_date');
  if ((input.activation_condition ?? 'ON_START') !== 'ON_START') {
    throw badRequest('activation_condition: only ON_START is supported; use a checkout session to activate on payment');
  }
  if (input.net_terms !== undefined && input.net_terms !== null && (!Number.isInteger(input.net_terms) || input.net_terms < 0)) {
    throw badRequest('net_terms must be a whole number of days >= 0');
  }
  const customer = await findCustomer(tx, tenantId, input.customer_id_or_alias, { lock: true });
  if (!customer) throw badRequest(`${fields.customer} '${input.customer_id_or_alias}' is not a customer of this tenant`);
  if (customer.archived_at) throw badRequest(`customer '${input.customer_id_or_alias}' is archived and cannot get new subscriptions`);

  const selector = input.plan_version_id ? { planVersionId: input.plan_version_id } : input.plan_id ? { planId: input.plan_id, version: input.version } : undefined;
  if (!selector) throw badRequest('plan_id (or plan_version_id) is required');
  const version = await catalog.findPlanVersion(tx, tenantId, selector);
  const planField = input.plan_version_id ? 'plan_version_id' : 'plan_id';
  if (!version) throw badRequest(`${planField} '${input.plan_version_id ?? input.plan_id}' has no published version in this tenant`);
  if (version.isDraft) throw badRequest(`${planField}: version ${version.version} is a draft; publish it first`);
  if (version.planStatus === 'ARCHIVED' || version.planStatus === 'INACTIVE') throw badRequest(`${planField}: the plan is ${version.planStatus.toLowerCase()} and not offered for new subscriptions`);
  if (version.currency !== customer.currency) {
    throw badRequest(`${planField}: the plan is priced in ${version.currency} but the customer is billed in ${customer.currency}`);
  }

  const id = newId('subscription', now.getTime());
  // Trial: the subscription's trial_days (0 = none) override the plan's.
  const trialDays = input.trial_days ?? version.trialDurationDays ?? 0;
  if (!Number.isInteger(trialDays) || trialDays < 0) throw badRequest(`${fields.trialDays} must be a whole number >= 0`);
  const trialEnd = trialDays > 0 ? addDays(input.start_date, trialDays) : null;
  const freeTrial = trialEnd !== null && version.trialIsFree;
  const billingStart = input.billing_start_date ?? (freeTrial ? trialEnd! : input.start_date);
  if (compareDates(billingStart, input.start_date) < 0) throw badRequest('billing_start_date must not be before start_date');
  if (freeTrial && compareDates(billingStart, trialEnd!) < 0) throw badRequest(`billing_start_date must not be inside the free trial (ends ${trialEnd})`);
  if (input.end_date && compareDates(input.end_date, input.start_date) <= 0) throw badRequest('end_date must be after start_date');
  const anchor = input.billing_day_anchor ?? version.periodStartDay ?? parseLocalDate(billingStart).day;
  if (!Number.isInteger(anchor) || anchor < 1 || anchor > 31) throw badRequest('billing_day_anchor must be between 1 and 31');
  if (input.skip_past_invoices && compareDates(input.start_date, todayDate) >= 0) {
    throw badRequest('skip_past_invoices needs a start_date in the past');
  }

  // Fee snapshot: removals, then choices, then price overrides.
  const pc = input.price_components ?? {};
  const known = new Set(version.components.map((c) => c.id));
  const mustKnow = (componentId: string, path: string) => {
    if (!known.has(componentId)) throw badRequest(`${path} '${componentId}' is not a component of plan version ${version.version}`);
  };
  const pcField = fields.priceComponents;
  (pc.remove_components ?? []).forEach((cid, i) => mustKnow(cid, `${pcField}.remove_components[${i}]`));
  (pc.parameterized_components ?? []).forEach((p, i) => mustKnow(p.component_id, `${pcField}.parameterized_components[${i}].component_id`));
  (pc.overridden_components ?? []).forEach((o, i) => mustKnow(o.component_id, `${pcField}.overridden_components[${i}].component_id`));
  const components: ComponentRow[] = [];
  for (const component of version.components) {
    if (pc.remove_components?.includes(component.id)) continue;
    const pIndex = (pc.parameterized_components ?? []).findIndex((p) => p.component_id === component.id);
    const params = pIndex >= 0 ? pc.parameterized_components![pIndex]!.parameters : {};
    const path = `${pcField}.parameterized_components[${pIndex >= 0 ? pIndex : `component ${component.id}`}].parameters`;
    let resolved = resolveFee(component.fee, params, path);
    const oIndex = (pc.overridden_components ?? []).findIndex((o) => o.component_id === component.id);
    const override = oIndex >= 0 ? pc.overridden_components![oIndex]! : undefined;
    if (override) resolved = { ...resolved, fee: overrideFee(resolved.fee, override.fee, `${pcField}.overridden_components[${oIndex}].fee`) };
    if (resolved.fee.type === 'SLOT') checkSlots(resolved.fee.initial_slots, resolved.fee.min_slots, resolved.fee.max_slots, `${path}.initial_slot_count`);
    components.push({
      id: newId('subscriptionComponent', now.getTime()), subscription_id: id, price_component_id: component.id, product_id: component.productId,
      name: override?.name ?? component.name, fee: resolved.fee, period: resolved.period, position: version.components.indexOf(component), effective_from: input.start_date, effective_to: null, created_at: now,
    });
  }
  const addOns = await resolveAddOns(tx, tenantId, catalog, version, input.add_ons ?? [], id, input.start_date, now);
  const term = shortestTerm([...components, ...addOns].map((c) => c.period));
  const dates = { startDate: input.start_date, trialEndDate: trialEnd, endDate: input.end_date ?? null, cancelEffectiveDate: null };
  const status = statusOn(dates, todayDate);
  const row: SubscriptionRow = {
    id, customer_id: customer.id, plan_id: version.planId, plan_version_id: version.versionId, plan_name: version.planName, plan_version: version.version,
    currency: version.currency, status, next_transition_on: nextTransitionOn(dates, todayDate), start_date: input.start_date, end_date: input.end_date ?? null,
    billing_start_date: billingStart, billing_day_anchor: anchor, period: term,
    net_terms: input.net_terms ?? version.netTerms, trial_duration_days: trialEnd ? trialDays : null, trial_is_free: freeTrial,
    trialing_plan_id: trialEnd ? version.trialingPlanId : null, trial_end_date: trialEnd, skip_past_invoices: input.skip_past_invoices ?? false,
    invoice_memo: input.invoice_memo ?? null, purchase_order: input.purchase_order ?? null, auto_advance_invoices: input.auto_advance_invoices ?? true,
    charge_automatically: input.charge_automatically ?? true, payment_methods_config: input.payment_methods_config ?? null,
    mrr_minor: mrrMinor([...components, ...addOns], version.currency),
    activated_at: status === 'PENDING_ACTIVATION' ? null : now, cancel_requested_at: null, cancel_effective_date: null, cancellation_reason: null,
    ended_at: status === 'COMPLETED' ? now : null, scheduled_plan_change: null, checkout_session_id: origin.checkoutSessionId ?? null, past_due_since: null,
    usage_thresholds: thresholdsOrNull(input.usage_thresholds === undefined ? (version.usageThresholds ?? []) : parseUsageThresholds(input.usage_thresholds ?? [], version.currency)),
    custom_properties: await deps.properties.resolve(tx, tenantId, 'SUBSCRIPTION', input.custom_properties ?? {}, { creating: true }),
    created_at: now, updated_at: now,
  };

  // Coupons (by code, case-insensitive, or id): checked now, redeemed when the row is written.
  const coupons: PreparedSubscription['coupons'] = [];
  const seen = new Set<string>();
  for (const [index, codeOrId] of (input.coupon_codes ?? []).entries()) {
    const field = fields.coupon(index);
    const coupon = await checkCouponApplicable(tx, tenantId, codeOrId, { at: now, currency: version.currency, planId: version.planId, customerId: customer.id }, field);
    if (seen.has(coupon.id)) throw badRequest(`${field} '${codeOrId}' names a coupon already given`);
    seen.add(coupon.id);
    coupons.push({ field, codeOrId, coupon });
  }
  return { customer, version, row, components, addOns, coupons };
}

/** The coupon as kept on the subscription (reference Coupon fields), frozen when applied. */
export function couponSnapshot(coupon: Coupon): Record<string, unknown> {
  return {
    id: coupon.id, code: coupon.code, description: coupon.description, discount: coupon.discount,
    expires_at: coupon.expires_at ? coupon.expires_at.toISOString() : null, redemption_limit: coupon.redemption_limit,
    recurring_value: coupon.recurring_value, reusable: coupon.reusable, disabled: coupon.disabled, plan_ids: coupon.plan_ids,
  };
}

/**
 * A digest of what the customer pays: plan version, currency, every fee with its period and
 * quantity, and the coupons' discounts. Ids, dates and names that do not change the price are
 * left out, so the same request prepared twice gives the same digest unless a price moved.
 */
export function pricedFingerprint(p: PreparedSubscription): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
    return value;
  };
  const priced = {
    plan_version_id: p.row.plan_version_id,
    currency: p.row.currency,
    trial: { days: p.row.trial_duration_days, free: p.row.trial_is_free },
    components: p.components.map((c) => ({ component: c.price_component_id, fee: c.fee, period: c.period })),
    add_ons: p.addOns.map((a) => ({ add_on: a.add_on_id, fee: a.fee, period: a.period, quantity: a.quantity })),
    coupons: p.coupons.map((c) => ({ id: c.coupon.id, discount: c.coupon.discount, recurring_value: c.coupon.recurring_value })),
  };
  return createHash('sha256').update(JSON.stringify(canonical(priced))).digest('hex');
}

/**
 * A prepared subscription as the record it will be once written (coupon rows as they will be
 * inserted): the hosted checkout page previews its first invoice through the billing run's one
 * preview path (invoices' upcoming invoice) before anything is written.
 */
export function preparedRecord(p: PreparedSubscription): SubscriptionRecord {
  const { row, customer } = p;
  return {
    subscription: { ...row, customer_name: customer.name, customer_alias: customer.alias, test_clock_id: customer.test_clock_id },
    components: p.components,
    addOns: p.addOns,
    coupons: p.coupons.map(({ coupon }, index) => ({
      id: `preview_coupon_${index}`, subscription_id: row.id, coupon_id: coupon.id, coupon: couponSnapshot(coupon),
      is_active: true, applied_count: 0, applied_amount: null, last_applied_at: null, created_at: row.created_at,
    })),
  };
}

/** Writes a prepared subscription: rows, coupon redemptions, the `subscription.created` event. */
export async function writePreparedSubscription(tx: Queryable, clock: Clock, tenantId: string, p: PreparedSubscription): Promise<SubscriptionRow> {
  const { row, customer } = p;
  await repo.insertSubscription(tx, tenantId, row);
  await repo.insertComponents(tx, tenantId, p.components);
  await repo.insertAddOns(tx, tenantId, p.addOns);
  for (const { field, codeOrId, coupon } of p.coupons) {
    // Locks the coupon and checks it again, so two subscriptions cannot both take its last redemption.
    const redeemed = await redeemCoupon(tx, tenantId, codeOrId, { at: row.created_at, currency: row.currency, planId: row.plan_id, customerId: customer.id, subscriptionId: row.id }, field);
    await repo.insertCoupon(tx, tenantId, {
      id: newId('appliedCoupon', row.created_at.getTime()), subscription_id: row.id, coupon_id: coupon.id, coupon: couponSnapshot(redeemed),
      is_active: true, applied_count: 0, applied_amount: null, last_applied_at: null, created_at: row.created_at,
    });
  }
  const view = { ...row, customer_name: customer.name, customer_alias: customer.alias };
  await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'subscription.created', objectId: row.id, data: subscriptionEventData(view) });
  return row;
}

export async function createSubscriptionInTx(
  tx: Queryable,
  deps: { clock: Clock; catalog: SubscriptionCatalog; properties: CustomPropertiesPort },
  tenantId: string,
  input: CreateSubscriptionInput,
  origin: { checkoutSessionId?: string } = {},
): Promise<SubscriptionRow> {
  return writePreparedSubscription(tx, deps.clock, tenantId, await prepareSubscription(tx, deps, tenantId, input, origin));
}
