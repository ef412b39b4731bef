import { frozenClock, today, type Clock } from '../../kernel/clock.js';
import { parseUsageThresholds } from '../plans/index.js';
import { thresholdsOrNull } from './thresholds.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { paginationMeta, parseOrderBy, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { scoped } from '../../db/tenant-scope.js';
import { compareDates, isInForce, isLive, LIVE_STATUSES, nextClockEventOn, parseLocalDate, statusOn, transitionEvent, SUBSCRIPTION_STATUSES, type LocalDate, type SubscriptionStatus } from '../../domain/index.js';
import { findCustomer, type TestClockTime } from '../customers/index.js';
import type { SubscriptionCatalog } from './catalog.js';
import { createSubscriptionInTx, prepareSubscription, preparedRecord, type CreateSubscriptionInput } from './create.js';
import { loadSubscriptionRecord, type SubscriptionRecord } from './records.js';
import { inRolledBackTx } from './what-if.js';
import * as repo from './repository.js';
import type { AddOnRow, ComponentRow, CouponRow, SubscriptionOrderColumn, SubscriptionView } from './repository.js';
import { subscriptionEventData } from './events.js';
import { currentPeriodOf, lifecycleDatesOf, type NextInvoiceDate } from './schedule.js';
import { addAddOn, applyScheduledChange, changeAddOn, changePlan, changeSlots, dropScheduledChange, type ChangePlanInput } from './changes.js';
import type { CustomPropertiesPort } from '../custom-properties/index.js';

export interface SubscriptionDetailsData {
  subscription: SubscriptionView;
  components: ComponentRow[];
  addOns: AddOnRow[];
  coupons: CouponRow[];
  /** Entitlement values set on this subscription (overrides). */
  entitlements: Awaited<ReturnType<typeof repo.entitlementRowsOf>>;
  today: string;
  /** The billing engine's next invoice date (after today), or null. */
  nextInvoiceDate: LocalDate | null;
}

export interface ListSubscriptionsQuery {
  customer_id?: string;
  plan_id?: string;
  statuses?: string[];
  order_by?: string;
  page?: number;
  per_page?: number;
}

/**
 * Moves one subscription along the status machine up to `todayDate`, writing the transition's
 * event. The row must be locked by the caller's transaction.
 */
export async function advanceOne(tx: Queryable, clock: Clock, tenantId: string, sub: SubscriptionView, todayDate: string): Promise<SubscriptionView> {
  const dates = lifecycleDatesOf(sub);
  const status = statusOn(dates, todayDate);
  // A plan change scheduled for the period end switches the plan fields on its date too.
  const applied = isLive(status) ? applyScheduledChange(sub, todayDate) : sub;
  const next: SubscriptionView = { ...applied, status, next_transition_on: nextClockEventOn(dates, todayDate, applied.scheduled_plan_change?.effective_date) };
  if (status === sub.status && next.next_transition_on === sub.next_transition_on && applied === sub) return sub;
  const now = clock.now();
  if (sub.status === 'PENDING_ACTIVATION' && status !== 'PENDING_ACTIVATION' && !sub.activated_at) next.activated_at = now;
  if (!isLive(status) && isLive(sub.status)) next.ended_at = now;
  next.updated_at = now;
  await repo.updateSubscription(tx, tenantId, next);
  if (applied !== sub) {
    await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'subscription.plan_changed', objectId: sub.id, data: { ...subscriptionEventData(next), plan_version_id: next.plan_version_id, effective_date: sub.scheduled_plan_change!.effective_date, timing: 'END_OF_PERIOD' } });
  }
  const event = transitionEvent(sub.status, status);
  if (event) await writeOutboxEvent(scoped(tx, tenantId), clock, { type: event, objectId: sub.id, data: subscriptionEventData(next) });
  return next;
}

/** What a list may filter on: the statuses shown, PAST_DUE included. */
const SHOWN_STATUSES = [...SUBSCRIPTION_STATUSES, 'PAST_DUE'] as const;

export interface SubscriptionsDeps {
  pool: Pool;
  clock: Clock;
  catalog: SubscriptionCatalog;
  nextInvoiceDate: NextInvoiceDate;
  /** Checks subscriptions' custom property values and filters lists by them (custom-properties). */
  properties: CustomPropertiesPort;
  /**
   * The subscriptions this service's clock drives: those of the customers on this test clock (its
   * advance, or a request about one of them, with `clock` stopped at the clock's time); absent,
   * those on no test clock, with the service clock.
   */
  testClockId?: string;
  /** Reads a test clock's frozen time (test-clocks, passed in by the composition root). */
  testClockTime?: TestClockTime;
}

export function createSubscriptionsService(deps: SubscriptionsDeps) {
  const { pool, clock } = deps;

  /** Applies clock-driven transitions that are due for the tenant (cheap: an indexed date), to the subscriptions this clock drives. */
  async function advanceDue(tenantId: string): Promise<number> {
    const todayDate = today(clock);
    const ids = await repo.dueForTransition(pool, tenantId, todayDate, deps.testClockId ?? null);
    for (const id of ids) {
      await withTx(pool, async (tx) => {
        const sub = await repo.findSubscription(tx, tenantId, id, true);
        if (sub) await advanceOne(tx, clock, tenantId, sub, todayDate);
      });
    }
    return ids.length;
  }

  /** The earliest date a status this clock drives will move (a test clock's advance stops there), or null. */
  function nextTransitionOn(tenantId: string): Promise<string | null> {
    return repo.nextTransitionDate(pool, tenantId, deps.testClockId ?? null);
  }

  /**
   * Each subscription's today, for the wire (current period, next invoice date): its customer's
   * test clock's date, else this service's.
   */
  async function todayOf(tenantId: string, subs: readonly SubscriptionView[]): Promise<(sub: SubscriptionView) => string> {
    const dates = new Map<string, string>();
    for (const id of new Set(subs.flatMap((s) => (s.test_clock_id ? [s.test_clock_id] : [])))) {
      const at = await deps.testClockTime?.(pool, tenantId, id);
      if (at) dates.set(id, today(frozenClock(at)));
    }
    const own = today(clock);
    return (sub) => (sub.test_clock_id ? dates.get(sub.test_clock_id) : undefined) ?? own;
  }

  /** Moves every tenant's due subscriptions on no test clock (the periodic job: events fire without any read). */
  async function advanceAllDue(): Promise<number> {
    let moved = 0;
    for (const tenantId of await repo.tenantsWithDueTransitions(pool, today(clock))) moved += await advanceDue(tenantId);
    return moved;
  }

  async function details(db: Queryable, tenantId: string, subscription: SubscriptionView): Promise<SubscriptionDetailsData> {
    const [components, addOns, coupons, entitlements] = await Promise.all([
      repo.componentsOf(db, tenantId, [subscription.id]),
      repo.addOnsOf(db, tenantId, [subscription.id]),
      repo.couponsOf(db, tenantId, [subscription.id]),
      repo.entitlementRowsOf(db, tenantId, subscription.id),
    ]);
    const todayDate = today(clock);
    const nextInvoiceDate = deps.nextInvoiceDate({ subscription, components, addOns, coupons }, todayDate);
    return { subscription, components, addOns, coupons, entitlements, today: todayDate, nextInvoiceDate };
  }

  /**
   * What the usage API shows for a subscription: its customer, its current period and the
   * metrics its usage and capacity fees (plan components and add-ons) in force today bill on.
   */
  async function usageScope(tenantId: string, id: string) {
    await advanceDue(tenantId);
    const sub = await repo.findSubscription(pool, tenantId, id, false);
    if (!sub) return undefined;
    const todayDate = today(clock);
    const current = currentPeriodOf(sub, todayDate);
    const [components, addOns] = await Promise.all([repo.componentsOf(pool, tenantId, [sub.id]), repo.addOnsOf(pool, tenantId, [sub.id])]);
    const metricIds = [...components, ...addOns]
      .filter((row) => isInForce(row.effective_from, row.effective_to, todayDate))
      .flatMap((row) => (row.fee.type === 'USAGE' || row.fee.type === 'CAPACITY' ? [row.fee.metric_id] : []));
    return { customerId: sub.customer_id, currentPeriodStart: current.start, currentPeriodEnd: current.end ?? current.start, metricIds: [...new Set(metricIds)] };
  }

  async function requireSubscription(db: Queryable, tenantId: string, id: string, lock = false): Promise<SubscriptionView> {
    const sub = await repo.findSubscription(db, tenantId, id, lock);
    if (!sub) throw notFound('subscription');
    return sub;
  }

  async function createSubscription(tenantId: string, input: CreateSubscriptionInput): Promise<SubscriptionDetailsData> {
    const id = await withTx(pool, async (tx) => (await createSubscriptionInTx(tx, deps, tenantId, input)).id);
    return getSubscription(tenantId, id);
  }

  /** The subscription `input` would create, checked as creation checks it, not stored (its first invoice is previewed from it). */
  function previewCreate(tenantId: string, input: CreateSubscriptionInput): Promise<SubscriptionRecord> {
    return inRolledBackTx(pool, async (tx) => preparedRecord(await prepareSubscription(tx, deps, tenantId, input)));
  }

  /** The subscription as the plan change would leave it, by the change's own code, rolled back (its next invoice shows the proration). */
  async function previewChangePlan(tenantId: string, id: string, input: ChangePlanInput): Promise<SubscriptionRecord> {
    await advanceDue(tenantId);
    return inRolledBackTx(pool, async (tx) => {
      await changePlan(tx, deps, tenantId, await requireSubscription(tx, tenantId, id, true), input);
      return (await loadSubscriptionRecord(tx, tenantId, id))!;
    });
  }

  async function getSubscription(tenantId: string, id: string): Promise<SubscriptionDetailsData> {
    await advanceDue(tenantId);
    return details(pool, tenantId, await requireSubscription(pool, tenantId, id));
  }

  async function listSubscriptions(tenantId: string, query: ListSubscriptionsQuery): Promise<Page<SubscriptionView>> {
    const page = pageRequest(query.page, query.per_page);
    // The reference's column is mrr_cents; ours is mrr (a decimal string), both sort the same.
    const orderBy = query.order_by?.replace(/^mrr_cents\./, 'mrr.');
    const order = parseOrderBy<SubscriptionOrderColumn>(orderBy, ['customer_name', 'plan_name', 'mrr', 'billing_start_date', 'end_date', 'status', 'created_at'], { column: 'created_at', direction: 'desc' });
    for (const [i, status] of (query.statuses ?? []).entries()) {
      if (!(SHOWN_STATUSES as readonly string[]).includes(status)) throw badRequest(`statuses[${i}] must be one of ${SHOWN_STATUSES.join(', ')}`);
    }
    let customerId: string | undefined;
    if (query.customer_id) {
      // Filter by id or alias; an unknown customer simply has no subscriptions.
      customerId = (await findCustomer(pool, tenantId, query.customer_id))?.id ?? query.customer_id;
    }
    await advanceDue(tenantId);
    const properties = await deps.properties.filter(pool, tenantId, 'SUBSCRIPTION', query);
    const { rows, total } = await repo.listSubscriptions(pool, tenantId, { customerId, planId: query.plan_id, statuses: query.statuses, properties }, order, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  /**
   * Cancels at a date (exclusive end of service), or at the end of the current period when no
   * date is given. A pending subscription cancelled "at period end" stops before it starts.
   */
  async function cancelSubscription(tenantId: string, id: string, input: { effective_date?: string | null; reason?: string | null }): Promise<SubscriptionView> {
    await advanceDue(tenantId);
    return withTx(pool, async (tx) => {
      const sub = await requireSubscription(tx, tenantId, id, true);
      if (!isLive(sub.status)) throw conflict(`subscription is already ${sub.status.toLowerCase()}`);
      if (sub.cancel_effective_date) throw conflict(`subscription is already cancelled effective ${sub.cancel_effective_date}`);
      const todayDate = today(clock);
      let effective: string;
      if (input.effective_date) {
        try {
          parseLocalDate(input.effective_date);
        } catch {
          throw badRequest(`effective_date must be a date YYYY-MM-DD, got '${input.effective_date}'`);
        }
        if (compareDates(input.effective_date, todayDate) < 0) throw badRequest('effective_date must not be in the past');
        effective = input.effective_date;
      } else {
        effective = currentPeriodOf(sub, todayDate).end ?? todayDate;
      }
      if (sub.end_date && compareDates(effective, sub.end_date) > 0) effective = sub.end_date;
      // A pending subscription cancelled before it starts ends on its start day: it never runs. A
      // date before the start would make a schedule that ends before it begins.
      if (compareDates(effective, sub.start_date) < 0) effective = sub.start_date;
      const now = clock.now();
      // A plan change that would start on or after the cancellation is dropped with its rows.
      const dropChange = sub.scheduled_plan_change !== null && compareDates(sub.scheduled_plan_change.effective_date, effective) >= 0;
      if (dropChange) await dropScheduledChange(tx, tenantId, sub);
      const next: SubscriptionView = { ...sub, cancel_requested_at: now, cancel_effective_date: effective, cancellation_reason: input.reason ?? null, scheduled_plan_change: dropChange ? null : sub.scheduled_plan_change, updated_at: now };
      await repo.updateSubscription(tx, tenantId, next);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'subscription.cancellation_scheduled', objectId: id, data: { ...subscriptionEventData(next), cancel_effective_date: effective, reason: next.cancellation_reason } });
      return advanceOne(tx, clock, tenantId, next, todayDate);
    });
  }

  /** What may change after creation: invoicing settings only (money-affecting changes have their own operations). */
  async function updateSubscription(
    tenantId: string,
    id: string,
    input: { net_terms?: number | null; invoice_memo?: string | null; purchase_order?: string | null; auto_advance_invoices?: boolean | null; charge_automatically?: boolean | null; payment_methods_config?: Record<string, unknown> | null;
      usage_thresholds?: { amount: unknown; recurring?: boolean | null; threshold_display_name?: string | null }[] | null; custom_properties?: Record<string, unknown> | null },
  ): Promise<SubscriptionDetailsData> {
    await withTx(pool, async (tx) => {
      const sub = await requireSubscription(tx, tenantId, id, true);
      if (!isLive(sub.status)) throw conflict(`subscription is ${sub.status.toLowerCase()} and can no longer change`);
      if (input.net_terms !== undefined && input.net_terms !== null && input.net_terms < 0) throw badRequest('net_terms must be a whole number of days >= 0');
      const next: SubscriptionView = {
        ...sub,
        net_terms: input.net_terms ?? sub.net_terms,
        invoice_memo: input.invoice_memo === undefined ? sub.invoice_memo : input.invoice_memo,
        purchase_order: input.purchase_order === undefined ? sub.purchase_order : input.purchase_order,
        auto_advance_invoices: input.auto_advance_invoices ?? sub.auto_advance_invoices,
        charge_automatically: input.charge_automatically ?? sub.charge_automatically,
        payment_methods_config: input.payment_methods_config === undefined ? sub.payment_methods_config : input.payment_methods_config,
        // replaced whole; thresholds already crossed in the current period stay invoiced
        usage_thresholds: input.usage_thresholds === undefined ? sub.usage_thresholds : thresholdsOrNull(parseUsageThresholds(input.usage_thresholds ?? [], sub.currency)),
        // left out: the stored values, checked again (a key defined since must now hold a value of its type)
        custom_properties: await deps.properties.resolve(tx, tenantId, 'SUBSCRIPTION', input.custom_properties === undefined ? sub.custom_properties : (input.custom_properties ?? {}), { creating: false }),
        updated_at: clock.now(),
      };
      await repo.updateSubscription(tx, tenantId, next);
      await writeOutboxEvent(scoped(tx, tenantId), clock, { type: 'subscription.updated', objectId: id, data: subscriptionEventData(next) });
    });
    return getSubscription(tenantId, id);
  }

  /** Runs one change use case on the locked subscription, then answers its details. */
  async function change(tenantId: string, id: string, use: (tx: Queryable, sub: SubscriptionView) => Promise<unknown>): Promise<SubscriptionDetailsData> {
    await advanceDue(tenantId);
    await withTx(pool, async (tx) => use(tx, await requireSubscription(tx, tenantId, id, true)));
    return getSubscription(tenantId, id);
  }

  return {
    changePlan: (tenantId: string, id: string, input: ChangePlanInput) => change(tenantId, id, (tx, sub) => changePlan(tx, deps, tenantId, sub, input)),
    changeSlots: (tenantId: string, id: string, input: { price_component_id: string; slots: number }) => change(tenantId, id, (tx, sub) => changeSlots(tx, deps, tenantId, sub, input)),
    addAddOn: (tenantId: string, id: string, input: Parameters<typeof addAddOn>[4]) => change(tenantId, id, (tx, sub) => addAddOn(tx, deps, tenantId, sub, input)),
    changeAddOn: (tenantId: string, id: string, addOnRowId: string, input: { quantity: number; immediately?: boolean }) =>
      change(tenantId, id, (tx, sub) => changeAddOn(tx, deps, tenantId, sub, addOnRowId, input)),
    /** Today's date (UTC) on the service clock. */
    today: () => today(clock),
    todayOf,
    createSubscription,
    previewCreate,
    previewChangePlan,
    getSubscription,
    listSubscriptions,
    cancelSubscription,
    updateSubscription,
    advanceDue,
    advanceAllDue,
    nextTransitionOn,
    requireSubscription,
    details,
    usageScope,
  };
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;

/** For customers (passed in by the composition root): how many subscriptions a customer has, and how many are not over. */
export function countSubscriptionsOfCustomer(db: Queryable, tenantId: string, customerId: string): Promise<{ live: number; total: number }> {
  return repo.countForCustomer(db, tenantId, customerId, LIVE_STATUSES);
}
export type { SubscriptionStatus };
