// Changes after creation: plan change (now or at the period end), add-ons added, removed or
// re-counted, slot counts. Nothing is edited in place: the rows in force are closed
// (effective_to = change date, exclusive) and new rows open (effective_from = change date), so
// invoicing credits the unused days of the old fees and charges the new ones by day.
// Upgrades (more slots, more add-on instances, a new add-on) take effect today; downgrades take
// effect at the end of the current period (no credit for the rest of it).
import { today, type Clock } from '../../kernel/clock.js';
import type { EventType } from '../../kernel/event-types.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { Queryable } from '../../db/pool.js';
import { scoped } from '../../db/tenant-scope.js';
import { writeOutboxEvent } from '../../db/outbox.js';
import { compareDates, isInForce, isLive, nextClockEventOn, shortestTerm, stopDate } from '../../domain/index.js';
import type { SubscriptionCatalog } from './catalog.js';
import { resolveAddOns, type CreateSubscriptionInput } from './create.js';
import { checkSlots, mrrMinor, overrideFee, resolveFee } from './fees.js';
import { currentPeriodOf, lifecycleDatesOf } from './schedule.js';
import * as repo from './repository.js';
import type { AddOnRow, ComponentRow, SubscriptionView } from './repository.js';
import { subscriptionEventData } from './events.js';

export type ChangeTiming = 'IMMEDIATE' | 'END_OF_PERIOD';

export interface ChangePlanInput {
  plan_id?: string;
  plan_version_id?: string;
  version?: number;
  timing?: ChangeTiming;
  price_components?: CreateSubscriptionInput['price_components'];
}

interface Deps {
  clock: Clock;
  catalog: SubscriptionCatalog;
}

const inForceOrLater = (row: { effective_to: string | null }, date: string) => row.effective_to === null || compareDates(row.effective_to, date) > 0;

function requireLive(sub: SubscriptionView): void {
  if (!isLive(sub.status)) throw conflict(`subscription is ${sub.status.toLowerCase()} and can no longer change`);
}

/** The first day a change applies: today (never before the start), or the current period end. */
function changeDate(sub: SubscriptionView, timing: ChangeTiming, todayDate: string): string {
  const start = compareDates(todayDate, sub.start_date) < 0 ? sub.start_date : todayDate;
  if (timing === 'IMMEDIATE') return start;
  const period = currentPeriodOf(sub, todayDate);
  return period.end ?? start;
}

function checkBeforeStop(sub: SubscriptionView, date: string): void {
  const stop = stopDate(lifecycleDatesOf(sub));
  if (stop !== null && compareDates(date, stop) >= 0) throw conflict(`the change would apply on ${date}, when the subscription has already stopped`);
}

/** Recomputes term, MRR and next transition from the rows in force on `date` and after. */
async function refresh(tx: Queryable, tenantId: string, sub: SubscriptionView, now: Date, todayDate: string): Promise<SubscriptionView> {
  const [components, addOns] = await Promise.all([repo.componentsOf(tx, tenantId, [sub.id]), repo.addOnsOf(tx, tenantId, [sub.id])]);
  const current = [...components, ...addOns].filter((r) => isInForce(r.effective_from, r.effective_to, todayDate));
  const next = nextClockEventOn(lifecycleDatesOf(sub), todayDate, sub.scheduled_plan_change?.effective_date);
  const term = current.length > 0 ? shortestTerm(current.map((r) => r.period)) : sub.period;
  return { ...sub, period: term, mrr_minor: mrrMinor(current, sub.currency), next_transition_on: next, updated_at: now };
}

async function emit(tx: Queryable, clock: Clock, tenantId: string, type: EventType, sub: SubscriptionView, extra: Record<string, unknown>): Promise<void> {
  await writeOutboxEvent(scoped(tx, tenantId), clock, { type, objectId: sub.id, data: { ...subscriptionEventData(sub), ...extra } });
}

/**
 * Moves the subscription to another published version (same currency). Every component and
 * every add-on the new version does not offer is closed on the change date; the new version's
 * components open on it. At END_OF_PERIOD the rows are written now (the schedule is visible
 * to invoicing) and the plan fields switch when the date arrives (`applyScheduledChange`).
 */
export async function changePlan(tx: Queryable, deps: Deps, tenantId: string, sub: SubscriptionView, input: ChangePlanInput): Promise<SubscriptionView> {
  const { clock, catalog } = deps;
  requireLive(sub);
  if (sub.scheduled_plan_change) throw conflict(`a plan change is already scheduled for ${sub.scheduled_plan_change.effective_date}`);
  const timing = input.timing ?? 'IMMEDIATE';
  const selector = input.plan_version_id ? { planVersionId: input.plan_version_id } : input.plan_id ? { planId: input.plan_id, version: input.version } : undefined;
  if (!selector) throw badRequest('plan_id (or plan_version_id) is required');
  const field = input.plan_version_id ? 'plan_version_id' : 'plan_id';
  const version = await catalog.findPlanVersion(tx, tenantId, selector);
  if (!version || version.isDraft || version.planStatus === 'ARCHIVED') throw badRequest(`${field} '${input.plan_version_id ?? input.plan_id}' has no published version in this tenant`);
  if (version.planStatus === 'INACTIVE') throw badRequest(`${field} '${input.plan_version_id ?? input.plan_id}': the plan is inactive and not offered for plan changes`);
  if (version.versionId === sub.plan_version_id) throw badRequest(`${field}: the subscription is already on this plan version`);
  if (version.currency !== sub.currency) throw badRequest(`${field}: the plan is priced in ${version.currency}, the subscription in ${sub.currency}`);

  const now = clock.now();
  const todayDate = today(clock);
  const date = changeDate(sub, timing, todayDate);
  checkBeforeStop(sub, date);
  const pc = input.price_components ?? {};
  const known = new Set(version.components.map((c) => c.id));
  (pc.parameterized_components ?? []).forEach((p, i) => {
    if (!known.has(p.component_id)) throw badRequest(`price_components.parameterized_components[${i}].component_id '${p.component_id}' is not a component of the new plan version`);
  });
  const created: ComponentRow[] = [];
  for (const component of version.components) {
    if (pc.remove_components?.includes(component.id)) continue;
    const pIndex = (pc.parameterized_components ?? []).findIndex((p) => p.component_id === component.id);
    const path = pIndex >= 0 ? `price_components.parameterized_components[${pIndex}].parameters` : `price_components.parameterized_components[component ${component.id}].parameters`;
    let resolved = resolveFee(component.fee, pIndex >= 0 ? pc.parameterized_components![pIndex]!.parameters : {}, path);
    const oIndex = (pc.overridden_components ?? []).findIndex((o) => o.component_id === component.id);
    if (oIndex >= 0) resolved = { ...resolved, fee: overrideFee(resolved.fee, pc.overridden_components![oIndex]!.fee, `price_components.overridden_components[${oIndex}].fee`) };
    created.push({
      id: newId('subscriptionComponent', now.getTime()), subscription_id: sub.id, price_component_id: component.id, product_id: component.productId,
      name: component.name, fee: resolved.fee, period: resolved.period, position: version.components.indexOf(component), effective_from: date, effective_to: null, created_at: now,
    });
  }
  const [components, addOns] = await Promise.all([repo.componentsOf(tx, tenantId, [sub.id]), repo.addOnsOf(tx, tenantId, [sub.id])]);
  await repo.closeComponents(tx, tenantId, components.filter((c) => inForceOrLater(c, date)).map((c) => c.id), date);
  const offered = new Set(version.addOns.map((a) => a.addOnId));
  await repo.closeAddOns(tx, tenantId, addOns.filter((a) => inForceOrLater(a, date) && !offered.has(a.add_on_id)).map((a) => a.id), date);
  await repo.insertComponents(tx, tenantId, created);

  const planFields = { plan_id: version.planId, plan_version_id: version.versionId, plan_name: version.planName, plan_version: version.version };
  let next: SubscriptionView;
  if (compareDates(date, todayDate) <= 0) {
    next = { ...sub, ...planFields };
  } else {
    next = { ...sub, scheduled_plan_change: { ...planFields, effective_date: date, requested_at: now.toISOString() } as SubscriptionView['scheduled_plan_change'] };
  }
  next = await refresh(tx, tenantId, next, now, todayDate);
  await repo.updateSubscription(tx, tenantId, next);
  await emit(tx, clock, tenantId, date === todayDate || compareDates(date, todayDate) < 0 ? 'subscription.plan_changed' : 'subscription.plan_change_scheduled', next, {
    plan_version_id: version.versionId, effective_date: date, timing,
  });
  return next;
}

/** Switches the plan fields of a scheduled change once its date has come (rows are already written). */
export function applyScheduledChange(sub: SubscriptionView, todayDate: string): SubscriptionView {
  const change = sub.scheduled_plan_change as (SubscriptionView['scheduled_plan_change'] & { plan_id?: string; plan_name?: string; plan_version?: number }) | null;
  if (!change || compareDates(todayDate, change.effective_date) < 0) return sub;
  return {
    ...sub,
    plan_id: change.plan_id ?? sub.plan_id,
    plan_version_id: change.plan_version_id,
    plan_name: change.plan_name ?? sub.plan_name,
    plan_version: change.plan_version ?? sub.plan_version,
    scheduled_plan_change: null,
  };
}

/**
 * Drops a scheduled plan change that a cancellation makes moot (it would start on or after the
 * cancellation date): removes the rows it opened and reopens the rows it closed.
 */
export async function dropScheduledChange(tx: Queryable, tenantId: string, sub: SubscriptionView): Promise<void> {
  const change = sub.scheduled_plan_change;
  if (!change) return;
  const requestedAt = new Date(change.requested_at);
  await scoped(tx, tenantId).query(`DELETE FROM subscription_components WHERE tenant_id = $1 AND subscription_id = $2 AND effective_from = $3::date AND created_at = $4`, [sub.id, change.effective_date, requestedAt]);
  await scoped(tx, tenantId).query(`UPDATE subscription_components SET effective_to = NULL WHERE tenant_id = $1 AND subscription_id = $2 AND effective_to = $3::date`, [sub.id, change.effective_date]);
  await scoped(tx, tenantId).query(`UPDATE subscription_add_ons SET effective_to = NULL WHERE tenant_id = $1 AND subscription_id = $2 AND effective_to = $3::date`, [sub.id, change.effective_date]);
}

/** Sets the slot count of a SLOT component: more slots today, fewer at the period end. */
export async function changeSlots(tx: Queryable, deps: Deps, tenantId: string, sub: SubscriptionView, input: { price_component_id: string; slots: number }): Promise<SubscriptionView> {
  const { clock } = deps;
  requireLive(sub);
  const now = clock.now();
  const todayDate = today(clock);
  const components = await repo.componentsOf(tx, tenantId, [sub.id]);
  const open = components.filter((c) => c.price_component_id === input.price_component_id && c.effective_to === null && c.fee.type === 'SLOT');
  const latest = open[open.length - 1];
  if (!latest || latest.fee.type !== 'SLOT') throw badRequest(`price_component_id '${input.price_component_id}' is not a slot component of this subscription`);
  checkSlots(input.slots, latest.fee.min_slots, latest.fee.max_slots, 'slots');
  if (input.slots === latest.fee.initial_slots) throw badRequest(`slots: the subscription already has ${input.slots} ${latest.fee.unit}(s)`);
  const timing: ChangeTiming = input.slots > latest.fee.initial_slots ? 'IMMEDIATE' : 'END_OF_PERIOD';
  const date = compareDates(changeDate(sub, timing, todayDate), latest.effective_from) < 0 ? latest.effective_from : changeDate(sub, timing, todayDate);
  checkBeforeStop(sub, date);
  await repo.closeComponents(tx, tenantId, [latest.id], date);
  await repo.insertComponents(tx, tenantId, [{ ...latest, id: newId('subscriptionComponent', now.getTime()), fee: { ...latest.fee, initial_slots: input.slots }, effective_from: date, effective_to: null, created_at: now }]);
  const next = await refresh(tx, tenantId, sub, now, todayDate);
  await repo.updateSubscription(tx, tenantId, next);
  await emit(tx, clock, tenantId, 'subscription.slots_changed', next, { price_component_id: input.price_component_id, slots: input.slots, previous_slots: latest.fee.initial_slots, effective_date: date });
  return next;
}

/** Adds an add-on offered by the subscription's plan version, from today. */
export async function addAddOn(tx: Queryable, deps: Deps, tenantId: string, sub: SubscriptionView, item: NonNullable<CreateSubscriptionInput['add_ons']>[number]): Promise<SubscriptionView> {
  const { clock, catalog } = deps;
  requireLive(sub);
  const now = clock.now();
  const todayDate = today(clock);
  const date = changeDate(sub, 'IMMEDIATE', todayDate);
  checkBeforeStop(sub, date);
  const version = await catalog.findPlanVersion(tx, tenantId, { planVersionId: sub.plan_version_id });
  if (!version) throw conflict('the plan version of this subscription is gone');
  const existing = (await repo.addOnsOf(tx, tenantId, [sub.id])).filter((a) => a.add_on_id === item.add_on_id && inForceOrLater(a, date));
  if (existing.length > 0) throw conflict(`add_on_id '${item.add_on_id}' is already on the subscription; change its quantity instead`);
  const rows = await resolveAddOns(tx, tenantId, catalog, version, [item], sub.id, date, now, 'add_ons');
  await repo.insertAddOns(tx, tenantId, rows);
  const next = await refresh(tx, tenantId, sub, now, todayDate);
  await repo.updateSubscription(tx, tenantId, next);
  await emit(tx, clock, tenantId, 'subscription.add_on_added', next, { add_on_id: item.add_on_id, quantity: rows[0]!.quantity, effective_date: date });
  return next;
}

/** New quantity of an add-on (more: today; fewer: period end), or 0 to remove it at the period end (or today with `immediately`). */
export async function changeAddOn(
  tx: Queryable,
  deps: Deps,
  tenantId: string,
  sub: SubscriptionView,
  subscriptionAddOnId: string,
  input: { quantity: number; immediately?: boolean },
): Promise<SubscriptionView> {
  const { clock, catalog } = deps;
  requireLive(sub);
  const now = clock.now();
  const todayDate = today(clock);
  const row = (await repo.addOnsOf(tx, tenantId, [sub.id])).find((a) => a.id === subscriptionAddOnId);
  if (!row) throw notFound('subscription add-on');
  if (row.effective_to !== null) throw conflict(`this add-on already ends on ${row.effective_to}`);
  if (!Number.isInteger(input.quantity) || input.quantity < 0) throw badRequest('quantity must be a whole number >= 0');
  if (input.quantity === row.quantity) throw badRequest(`quantity: the add-on already has quantity ${row.quantity}`);
  const timing: ChangeTiming = input.quantity > row.quantity || input.immediately ? 'IMMEDIATE' : 'END_OF_PERIOD';
  let date = changeDate(sub, timing, todayDate);
  if (compareDates(date, row.effective_from) < 0) date = row.effective_from;
  checkBeforeStop(sub, date);
  if (input.quantity > 0) {
    const version = await catalog.findPlanVersion(tx, tenantId, { planVersionId: sub.plan_version_id });
    const offered = version?.addOns.find((a) => a.addOnId === row.add_on_id);
    const addOn = await catalog.findAddOn(tx, tenantId, row.add_on_id);
    const max = offered?.maxInstances ?? addOn?.maxInstances ?? null;
    if (max !== null && input.quantity > max) throw badRequest(`quantity must be at most ${max} (max instances per subscription)`);
  }
  await repo.closeAddOns(tx, tenantId, [row.id], date);
  if (input.quantity > 0) {
    await repo.insertAddOns(tx, tenantId, [{ ...row, id: newId('subscriptionAddOn', now.getTime()), quantity: input.quantity, effective_from: date, effective_to: null, created_at: now }]);
  }
  const next = await refresh(tx, tenantId, sub, now, todayDate);
  await repo.updateSubscription(tx, tenantId, next);
  await emit(tx, clock, tenantId, input.quantity === 0 ? 'subscription.add_on_removed' : 'subscription.add_on_changed', next, {
    add_on_id: row.add_on_id, quantity: input.quantity, previous_quantity: row.quantity, effective_date: date,
  });
  return next;
}

export type { AddOnRow };
