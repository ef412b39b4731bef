// Checkout sessions: create (priced and validated like a subscription, nothing written but the
// session), read, cancel, complete. Completion creates the subscription exactly once: the
// session row is locked for the whole completion, and subscriptions(tenant_id,
// checkout_session_id) is unique as a backstop.
import { today, type Clock } from '../../kernel/clock.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { paginationMeta, pageRequest, type Page } from '../../kernel/paging.js';
import type { Pool, Queryable } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { compareDates } from '../../domain/dates.js';
import { findCustomer } from '../customers/index.js';
import {
  prepareSubscription,
  pricedFingerprint,
  writePreparedSubscription,
  type CreateSubscriptionInput,
  type PreparedSubscription,
  type RequestFields,
  type SubscriptionCatalog,
} from '../subscriptions/index.js';
import * as repo from './repository.js';
import { CHECKOUT_TOKEN_SHAPE, type CheckoutLinks } from './page-links.js';
import { CHECKOUT_STATUSES, type CheckoutStatus, type SessionParams, type SessionRow } from './repository.js';
import type { CustomPropertiesPort } from '../custom-properties/index.js';

/** Default lifetime of a session (the reference's default); 0 hours = never expires. */
export const DEFAULT_EXPIRES_IN_HOURS = 1;
export const MAX_EXPIRES_IN_HOURS = 24 * 30;

export interface CreateCheckoutSessionInput {
  customer_id: string;
  plan_version_id: string;
  start_date?: string | null;
  billing_start_date?: string | null;
  billing_day_anchor?: number | null;
  net_terms?: number | null;
  trial_duration_days?: number | null;
  end_date?: string | null;
  add_ons?: SessionParams['add_ons'] | null;
  components?: Record<string, unknown> | null;
  coupon_code?: string | null;
  coupon_ids?: string[];
  success_url?: string | null;
  cancel_url?: string | null;
  payment_methods_config?: Record<string, unknown> | null;
  expires_in_hours?: number | null;
  invoice_memo?: string | null;
  purchase_order?: string | null;
  auto_advance_invoices?: boolean | null;
  charge_automatically?: boolean | null;
  metadata?: unknown;
}

export interface CompleteCheckoutSessionInput {
  /** SETTLED (default): the payment went through; PENDING: accepted, not settled yet (AWAITING_PAYMENT). */
  payment_status?: 'SETTLED' | 'PENDING';
  payment_reference?: string | null;
}


/** The subscription create request a session stands for, starting on `startDate`. */
function subscriptionInput(session: Pick<SessionRow, 'customer_id' | 'plan_version_id' | 'billing_start_date' | 'billing_day_anchor' | 'net_terms' | 'trial_duration_days' | 'coupon_code' | 'coupon_ids' | 'payment_methods_config' | 'subscription_params'>, startDate: string): CreateSubscriptionInput {
  const p = session.subscription_params;
  return {
    customer_id_or_alias: session.customer_id,
    plan_version_id: session.plan_version_id,
    start_date: startDate,
    end_date: p.end_date,
    billing_start_date: session.billing_start_date,
    billing_day_anchor: session.billing_day_anchor,
    net_terms: session.net_terms,
    trial_days: session.trial_duration_days,
    coupon_codes: [...(session.coupon_code ? [session.coupon_code] : []), ...session.coupon_ids],
    add_ons: p.add_ons as CreateSubscriptionInput['add_ons'],
    price_components: p.price_components as CreateSubscriptionInput['price_components'],
    invoice_memo: p.invoice_memo,
    purchase_order: p.purchase_order,
    auto_advance_invoices: p.auto_advance_invoices,
    charge_automatically: p.charge_automatically,
    payment_methods_config: session.payment_methods_config,
  };
}

/** What a session calls the fields subscription validation checks, so its errors name what the caller sent. */
function checkoutFields(session: Pick<SessionRow, 'coupon_code'>): RequestFields {
  return {
    customer: 'customer_id',
    trialDays: 'trial_duration_days',
    priceComponents: 'components',
    // subscriptionInput() sends coupon_codes as [coupon_code (when given), ...coupon_ids].
    coupon: (index) => (session.coupon_code === null ? `coupon_ids[${index}]` : index === 0 ? 'coupon_code' : `coupon_ids[${index - 1}]`),
  };
}

function checkUrl(value: string | null | undefined, field: string): string | null {
  if (value === undefined || value === null) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badRequest(`${field} must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest(`${field} must be an absolute http(s) URL`);
  return value;
}

/** The day a session's subscription starts if it completes now: its start_date, or today when that is earlier or unset. */
function startDateOf(session: Pick<SessionRow, 'start_date'>, clock: Clock): string {
  return session.start_date && compareDates(session.start_date, today(clock)) > 0 ? session.start_date : today(clock);
}

// `properties`: the subscription a session creates takes the defaults of the SUBSCRIPTION custom properties
export function createCheckoutService(deps: { pool: Pool; clock: Clock; catalog: SubscriptionCatalog; properties: CustomPropertiesPort; links: CheckoutLinks }) {
  const { pool, clock, links } = deps;

  /** Sessions expire by the clock: every read first moves overdue CREATED sessions to EXPIRED. */
  const expireDue = (tenantId: string) => repo.expireDue(pool, tenantId, clock.now());

  async function requireSession(db: Queryable, tenantId: string, id: string, lock = false): Promise<SessionRow> {
    const session = await repo.findSession(db, tenantId, id, lock);
    if (!session) throw notFound('checkout session');
    return session;
  }

  async function createSession(tenantId: string, input: CreateCheckoutSessionInput): Promise<SessionRow> {
    const now = clock.now();
    const todayDate = today(clock);
    const hours = input.expires_in_hours ?? DEFAULT_EXPIRES_IN_HOURS;
    if (!Number.isInteger(hours) || hours < 0 || hours > MAX_EXPIRES_IN_HOURS) throw badRequest(`expires_in_hours must be a whole number between 0 and ${MAX_EXPIRES_IN_HOURS}`);
    if (input.start_date && /^\d{4}-\d{2}-\d{2}$/.test(input.start_date) && compareDates(input.start_date, todayDate) < 0) {
      throw badRequest('start_date must not be in the past: a checkout starts the subscription when it completes, or later');
    }
    const id = newId('checkoutSession', now.getTime());
    const link = links.issue(tenantId, id);
    const row: SessionRow = {
      id,
      customer_id: input.customer_id,
      plan_version_id: input.plan_version_id,
      checkout_type: 'SELF_SERVE',
      status: 'CREATED',
      subscription_params: {
        end_date: input.end_date ?? null,
        add_ons: input.add_ons ?? [],
        price_components: input.components ?? null,
        invoice_memo: input.invoice_memo ?? null,
        purchase_order: input.purchase_order ?? null,
        auto_advance_invoices: input.auto_advance_invoices ?? null,
        charge_automatically: input.charge_automatically ?? null,
      },
      start_date: input.start_date ?? null,
      billing_start_date: input.billing_start_date ?? null,
      billing_day_anchor: input.billing_day_anchor ?? null,
      net_terms: input.net_terms ?? null,
      trial_duration_days: input.trial_duration_days ?? null,
      coupon_code: input.coupon_code ?? null,
      coupon_ids: input.coupon_ids ?? [],
      success_url: checkUrl(input.success_url, 'success_url'),
      cancel_url: checkUrl(input.cancel_url, 'cancel_url'),
      payment_methods_config: input.payment_methods_config ?? null,
      metadata: input.metadata ?? null,
      price_fingerprint: '',
      payment_reference: null,
      expires_at: hours === 0 ? null : new Date(now.getTime() + hours * 3_600_000),
      completed_at: null,
      cancelled_at: null,
      subscription_id: null,
      page_nonce: link.nonce,
      page_token_hash: link.tokenHash,
      created_at: now,
      updated_at: now,
    };
    return withTx(pool, async (tx) => {
      // Prices and validates the subscription the customer will be shown, writing nothing of it.
      const prepared = await prepareSubscription(tx, deps, tenantId, subscriptionInput(row, row.start_date ?? todayDate), { fields: checkoutFields(row) });
      const session = { ...row, customer_id: prepared.customer.id, price_fingerprint: pricedFingerprint(prepared) };
      await repo.insertSession(tx, tenantId, session);
      return session;
    });
  }

  async function getSession(tenantId: string, id: string): Promise<SessionRow> {
    await expireDue(tenantId);
    return requireSession(pool, tenantId, id);
  }

  async function listSessions(tenantId: string, query: { customer_id?: string; status?: string; page?: number; per_page?: number }): Promise<Page<SessionRow>> {
    const page = pageRequest(query.page, query.per_page);
    if (query.status !== undefined && !(CHECKOUT_STATUSES as readonly string[]).includes(query.status)) throw badRequest(`status must be one of ${CHECKOUT_STATUSES.join(', ')}`);
    // By id or alias; an unknown customer simply has no sessions.
    const customerId = query.customer_id ? ((await findCustomer(pool, tenantId, query.customer_id))?.id ?? query.customer_id) : undefined;
    await expireDue(tenantId);
    const { rows, total } = await repo.listSessions(pool, tenantId, { customerId, status: query.status as CheckoutStatus | undefined }, page);
    return { data: rows, pagination_meta: paginationMeta(page, total) };
  }

  /** Why a session cannot move any more (400, as the reference answers), or null while it can. */
  function closedReason(session: SessionRow): string | null {
    switch (session.status) {
      case 'COMPLETED':
        return 'checkout session is already completed';
      case 'CANCELLED':
        return 'checkout session is already cancelled';
      case 'EXPIRED':
        return `checkout session expired at ${session.expires_at?.toISOString()}`;
      default:
        if (session.status === 'CREATED' && session.expires_at && session.expires_at.getTime() <= clock.now().getTime()) {
          return `checkout session expired at ${session.expires_at.toISOString()}`;
        }
        return null;
    }
  }

  async function cancelSession(tenantId: string, id: string): Promise<SessionRow> {
    await expireDue(tenantId);
    return withTx(pool, async (tx) => {
      const session = await requireSession(tx, tenantId, id, true);
      const reason = closedReason(session);
      if (reason) throw badRequest(`${reason} and cannot be cancelled`);
      const now = clock.now();
      const next: SessionRow = { ...session, status: 'CANCELLED', cancelled_at: now, updated_at: now };
      await repo.updateSession(tx, tenantId, next);
      return next;
    });
  }

  /**
   * Completes a session: re-prices the subscription and refuses it when anything priced differs
   * from what the session was created with; then creates the subscription (SETTLED) or waits for
   * the payment to settle (PENDING -> AWAITING_PAYMENT). Completing a COMPLETED session again
   * answers the same session, so a retried or raced completion never creates a second subscription.
   */
  async function completeSession(tenantId: string, id: string, input: CompleteCheckoutSessionInput): Promise<SessionRow> {
    await expireDue(tenantId);
    return withTx(pool, async (tx) => {
      const session = await requireSession(tx, tenantId, id, true);
      if (session.status === 'COMPLETED') return session;
      const reason = closedReason(session);
      if (reason) throw badRequest(`${reason} and cannot be completed`);
      const now = clock.now();
      const startDate = startDateOf(session, clock);
      const prepared = await prepareSubscription(tx, deps, tenantId, subscriptionInput(session, startDate), { checkoutSessionId: session.id, fields: checkoutFields(session) });
      if (pricedFingerprint(prepared) !== session.price_fingerprint) {
        throw conflict('the price of this checkout changed since the session was created; create a new checkout session');
      }
      const paymentReference = input.payment_reference ?? session.payment_reference;
      if (input.payment_status === 'PENDING') {
        const waiting: SessionRow = { ...session, status: 'AWAITING_PAYMENT', payment_reference: paymentReference, updated_at: now };
        await repo.updateSession(tx, tenantId, waiting);
        return waiting;
      }
      const subscription = await writePreparedSubscription(tx, clock, tenantId, prepared);
      const done: SessionRow = { ...session, status: 'COMPLETED', payment_reference: paymentReference, completed_at: now, subscription_id: subscription.id, updated_at: now };
      await repo.updateSession(tx, tenantId, done);
      return done;
    });
  }

  /**
   * The hosted page's URL while the session can still be completed (CREATED, AWAITING_PAYMENT, not
   * past expiry), else null (as the reference); sessions created before the page existed have none.
   */
  function checkoutUrlOf(tenantId: string, session: SessionRow, origin?: string): string | null {
    if (session.page_nonce === null || closedReason(session) !== null) return null;
    return links.urlOf(tenantId, session.id, session.page_nonce, origin);
  }

  /** The session a page token opens (expiry applied first), or undefined. */
  async function sessionOfPage(token: string): Promise<{ tenantId: string; session: SessionRow } | undefined> {
    if (!CHECKOUT_TOKEN_SHAPE.test(token)) return undefined;
    const found = await repo.findByPageToken(pool, links.hashOf(token));
    if (!found) return undefined;
    await expireDue(found.tenant_id);
    const session = await repo.findSession(pool, found.tenant_id, found.id);
    return session ? { tenantId: found.tenant_id, session } : undefined;
  }

  /**
   * The subscription the session stands for if it completed now, priced by the same code as
   * creation and completion (nothing written). What the hosted page shows.
   */
  async function priceSession(tenantId: string, session: SessionRow): Promise<PreparedSubscription> {
    return withTx(pool, (tx) => prepareSubscription(tx, deps, tenantId, subscriptionInput(session, startDateOf(session, clock)), { checkoutSessionId: session.id, fields: checkoutFields(session) }));
  }

  /**
   * A coupon code typed on the hosted page (empty: none) replaces the session's: the session is
   * priced again with it, and its fingerprint becomes that price. A refused code is a 400 naming
   * coupon_code; the session is unchanged. Only while the session is CREATED.
   */
  async function applyCoupon(tenantId: string, id: string, code: string | null): Promise<SessionRow> {
    await expireDue(tenantId);
    return withTx(pool, async (tx) => {
      const session = await requireSession(tx, tenantId, id, true);
      const reason = closedReason(session);
      if (reason) throw badRequest(`${reason} and its coupon cannot change`);
      if (session.status !== 'CREATED') throw conflict('the payment of this checkout is in progress; its coupon cannot change');
      const next: SessionRow = { ...session, coupon_code: code, updated_at: clock.now() };
      const prepared = await prepareSubscription(tx, deps, tenantId, subscriptionInput(next, startDateOf(next, clock)), { checkoutSessionId: session.id, fields: checkoutFields(next) });
      next.price_fingerprint = pricedFingerprint(prepared);
      await repo.updateCoupon(tx, tenantId, next);
      return next;
    });
  }

  return { createSession, getSession, listSessions, cancelSession, completeSession, expireDue, checkoutUrlOf, sessionOfPage, priceSession, applyCoupon };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
