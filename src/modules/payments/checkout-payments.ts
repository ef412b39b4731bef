// What the hosted checkout page shows and does (docs/payments.md, "Hosted checkout"). The first
// payment is charged BEFORE the subscription exists, as a CHECKOUT payment attempt through the
// same charge code as finalization (charging.charge, key `charge:<attempt id>`): a decline leaves
// no subscription and no invoice behind. Once the attempt SUCCEEDED, `finish` completes the
// session (the checkout module creates the subscription, exactly once), creates and finalizes the
// first invoice and records the payment on it, in one transaction with linking the attempt.
import type { Clock } from '../../kernel/clock.js';
import { today } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import { AppError, badRequest, conflict } from '../../kernel/errors.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import type { CheckoutService, CheckoutSessionRow } from '../checkout/index.js';
import { findCustomers } from '../customers/index.js';
import { preparedRecord, pricedFingerprint, loadSubscriptionRecord, type PreparedSubscription } from '../subscriptions/index.js';
import { firstInvoiceOfSubscription, recordProviderPayment, type InvoiceDetail, type Invoicing } from '../invoices/index.js';
import { previewPrepaid } from '../credits/index.js';
import type { ProviderName } from '../../adapters/payments/provider.js';
import type { Providers } from './providers.js';
import { idempotencyKeyOf, type Charging } from './charging.js';
import type { PaymentsService } from './service.js';
import * as repo from './repository.js';
import { checkedPaymentMethodId, elementsKeyOf } from './stripe-elements.js';
import * as checkoutRepo from './checkout-repository.js';
import type { AttemptRow } from './repository.js';

export const CHECKOUT_FINISH_TASK = 'payments.checkout_finish';

/** Which kinds of method the page offers: the session's payment_methods_config, within what the tenant's provider takes. */
export interface Offered {
  card: boolean;
  directDebit: boolean;
}

export interface CheckoutView {
  tenantId: string;
  session: CheckoutSessionRow;
  /** The subscription as it would start now (null once the session is closed, or when it no longer prices: `priceError`). */
  prepared: PreparedSubscription | null;
  priceError: string | null;
  /** Its first invoice, previewed by the upcoming invoice's code (null: nothing will be invoiced). */
  firstInvoice: InvoiceDetail | null;
  /** What is charged on completion: the first invoice's amount less the customer's credit balance when it is dated today, else 0 (free trial, later start, arrears only). */
  dueNowMinor: bigint;
  provider: ProviderName | null;
  /** Stripe's publishable key (Stripe Elements), when the connection has one. */
  publishableKey: string | null;
  offered: Offered;
  /** The session's latest checkout payment attempt. */
  lastAttempt: AttemptRow | undefined;
}

/** A new method from the page's form: a sandbox card number, a Stripe PaymentMethod id (from Elements), or an IBAN (GoCardless). */
export type CheckoutMethodInput = { cardNumber: string } | { stripePaymentMethodId: string } | { iban: string; holderName: string | null };

export type PayOutcome =
  | { kind: 'COMPLETED'; session: CheckoutSessionRow }
  | { kind: 'DECLINED'; message: string }
  | { kind: 'PROCESSING' };

/** Which methods the config allows (null config or no `config`: every method of the provider; bank_transfer/external: none online). */
export function offeredMethods(config: Record<string, unknown> | null, provider: ProviderName | null): Offered {
  const takesCards = provider === 'sandbox' || provider === 'stripe';
  const takesDebits = provider === 'gocardless';
  if (config === null) return { card: takesCards, directDebit: takesDebits };
  if (config.type !== 'online') return { card: false, directDebit: false };
  const online = (config.config ?? null) as { card?: { enabled: boolean } | null; direct_debit?: { enabled: boolean } | null } | null;
  // inside an online config, a method left out is not offered; an online config without `config` inherits every method
  const allows = (toggle: { enabled: boolean } | null | undefined) => (online === null ? true : toggle?.enabled === true);
  return { card: takesCards && allows(online?.card), directDebit: takesDebits && allows(online?.direct_debit) };
}

export function createCheckoutPayments(deps: {
  pool: Pool; clock: Clock; providers: Providers; charging: Charging; service: PaymentsService; checkout: CheckoutService;
  invoicing: Pick<Invoicing, 'previewFirstInvoice' | 'billing' | 'lifecycle'>;
}) {
  const { pool, clock, providers, charging, checkout, invoicing } = deps;

  async function firstInvoiceOf(tenantId: string, prepared: PreparedSubscription): Promise<{ detail: InvoiceDetail | null; dueNowMinor: bigint }> {
    const detail = await invoicing.previewFirstInvoice(tenantId, preparedRecord(prepared));
    if (detail === null || detail.invoice.invoice_date > today(clock)) return { detail, dueNowMinor: 0n };
    // finalization pays from the customer's prepaid credits, then its cash balance, so the card is charged only the rest
    const prepaidMinor = await previewPrepaid(pool, tenantId, detail, clock.now());
    const balanceMinor = (await findCustomers(pool, tenantId, [prepared.row.customer_id]))[0]?.balance_minor ?? 0n;
    const dueNow = detail.invoice.amount_due_minor - prepaidMinor - balanceMinor;
    return { detail, dueNowMinor: dueNow > 0n ? dueNow : 0n };
  }

  /** The page's view of the session a token opens; undefined for an unknown token. */
  async function view(token: string): Promise<CheckoutView | undefined> {
    const opened = await checkout.sessionOfPage(token);
    if (!opened) return undefined;
    const { tenantId } = opened;
    let session = opened.session;
    let attempts = await checkoutRepo.attemptsOfSession(pool, tenantId, session.id);
    // a payment that succeeded after the page was left (processing, webhook, crash) completes the session now
    if (session.status !== 'COMPLETED' && attempts.some((a) => a.status === 'SUCCEEDED')) {
      session = (await finish(tenantId, session.id)) ?? session;
      attempts = await checkoutRepo.attemptsOfSession(pool, tenantId, session.id);
    }
    const provider = await providers.forTenant(pool, tenantId);
    const base: CheckoutView = {
      tenantId, session, prepared: null, priceError: null, firstInvoice: null, dueNowMinor: 0n, provider: provider?.name ?? null,
      publishableKey: await elementsKeyOf(pool, providers, tenantId), offered: offeredMethods(session.payment_methods_config, provider?.name ?? null), lastAttempt: attempts.at(-1),
    };
    if (session.status !== 'CREATED' && session.status !== 'AWAITING_PAYMENT') return base;
    try {
      const prepared = await checkout.priceSession(tenantId, session);
      if (pricedFingerprint(prepared) !== session.price_fingerprint) return { ...base, priceError: 'The price of this offer changed since it was made. Ask the seller for a new checkout link.' };
      const first = await firstInvoiceOf(tenantId, prepared);
      return { ...base, prepared, firstInvoice: first.detail, dueNowMinor: first.dueNowMinor };
    } catch (error) {
      if (error instanceof AppError && error.status < 500) return { ...base, priceError: `This offer can no longer be taken: ${error.message}. Ask the seller for a new checkout link.` };
      throw error;
    }
  }

  /** A coupon code typed on the page (empty removes it); a refused code is a 400 with the reason. */
  async function applyCoupon(current: CheckoutView, code: string): Promise<void> {
    const trimmed = code.trim();
    if (trimmed.length > 255) throw badRequest('coupon code must be at most 255 characters, e.g. SPRING25');
    await checkout.applyCoupon(current.tenantId, current.session.id, trimmed === '' ? null : trimmed);
  }

  /** Saves the new method with the tenant's provider, not as the default until the checkout succeeded. */
  async function saveMethod(current: CheckoutView, input: CheckoutMethodInput) {
    const { tenantId, session } = current;
    if ('cardNumber' in input) {
      if (!current.offered.card || current.provider !== 'sandbox') throw badRequest('a card number can only be typed on sandbox checkouts that take cards');
      const cardNumber = input.cardNumber.replace(/[\s-]/g, '');
      if (!/^\d{12,19}$/.test(cardNumber)) throw badRequest('card number must be 12 to 19 digits, e.g. 4242 4242 4242 4242');
      return deps.service.attachMethod(tenantId, session.customer_id, { card_number: cardNumber, set_default: false });
    }
    if ('stripePaymentMethodId' in input) {
      if (!current.offered.card || current.provider !== 'stripe') throw badRequest('a Stripe payment method can only be given on Stripe checkouts that take cards');
      return deps.service.attachMethod(tenantId, session.customer_id, { provider_payment_method_id: checkedPaymentMethodId(input.stripePaymentMethodId), set_default: false });
    }
    if (!current.offered.directDebit) throw badRequest('direct debit is not offered on this checkout');
    return deps.service.attachMethod(tenantId, session.customer_id, { iban: input.iban.replace(/\s/g, ''), ...(input.holderName ? { account_holder_name: input.holderName } : {}), set_default: false });
  }

  /** The saved method becomes the customer's default when it has none, so later invoices are charged to it. */
  async function adoptMethod(tenantId: string, customerId: string, methodId: string): Promise<void> {
    const settings = await repo.findCustomerSettings(pool, tenantId, customerId);
    if (!settings.default_payment_method_id) await deps.service.updateSettings(tenantId, customerId, { default_payment_method_id: methodId });
  }

  /**
   * Completes the page: saves the method, then charges what is due now (the first invoice) as a
   * CHECKOUT attempt, or, with nothing due now (free trial, zero first invoice), completes at once.
   * `shownAmountMinor` is what the page showed: a different price now is a 409, nothing charged.
   * One payment at a time per session: under an advisory lock of the session, an attempt still
   * PENDING refuses another (409) and a SUCCEEDED one is finished instead of charged again.
   */
  async function pay(current: CheckoutView, input: CheckoutMethodInput, shownAmountMinor: bigint | null): Promise<PayOutcome> {
    const { tenantId, session } = current;
    if (session.status === 'COMPLETED') return { kind: 'COMPLETED', session };
    if ((session.status !== 'CREATED' && session.status !== 'AWAITING_PAYMENT') || !current.prepared) throw conflict(current.priceError ?? `this checkout is ${session.status.toLowerCase()}`);
    if (shownAmountMinor !== null && shownAmountMinor !== current.dueNowMinor) throw conflict('the amount to pay changed since this page was shown; reload the page and check it');
    const method = await saveMethod(current, input);
    if (current.dueNowMinor === 0n) {
      const done = await checkout.completeSession(tenantId, session.id, { payment_status: 'SETTLED', payment_reference: null });
      await adoptMethod(tenantId, session.customer_id, method.id);
      return { kind: 'COMPLETED', session: done };
    }
    let attemptId: string | null = null;
    try {
      attemptId = await withTx(pool, async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`checkout:${tenantId}:${session.id}`]);
        const attempts = await checkoutRepo.attemptsOfSession(tx, tenantId, session.id);
        if (attempts.some((a) => a.status === 'SUCCEEDED')) return null;
        if (attempts.some((a) => a.status === 'PENDING')) throw conflict('a payment of this checkout is already in progress; reload the page in a minute');
        const now = clock.now();
        const id = newId('paymentAttempt', now.getTime());
        await checkoutRepo.insertCheckoutAttempt(tx, {
          id, tenant_id: tenantId, invoice_id: null, customer_id: session.customer_id, payment_method_id: method.id, provider: method.provider, occasion: 'CHECKOUT',
          retry_number: 0, amount_minor: current.dueNowMinor, currency: current.prepared!.row.currency, status: 'PENDING', idempotency_key: idempotencyKeyOf(id),
          provider_payment_id: null, failure_code: null, failure_message: null, requested_at: null, settled_at: null, created_at: now, updated_at: now,
        }, session.id);
        return id;
      });
    } catch (error) {
      await deps.service.detachMethod(tenantId, session.customer_id, method.id);
      throw error;
    }
    if (attemptId === null) {
      // another submit already paid: this one's method is not needed
      await deps.service.detachMethod(tenantId, session.customer_id, method.id);
      const done = await finish(tenantId, session.id);
      return done?.status === 'COMPLETED' ? { kind: 'COMPLETED', session: done } : { kind: 'PROCESSING' };
    }
    const attempt = (await charging.charge(tenantId, attemptId))!;
    if (attempt.status === 'SUCCEEDED') {
      const done = (await finish(tenantId, session.id))!;
      return { kind: 'COMPLETED', session: done };
    }
    if (attempt.status === 'PENDING') {
      await checkout.completeSession(tenantId, session.id, { payment_status: 'PENDING', payment_reference: attempt.provider_payment_id });
      return { kind: 'PROCESSING' };
    }
    await deps.service.detachMethod(tenantId, session.customer_id, method.id);
    const message = attempt.status === 'REQUIRES_ACTION'
      ? 'Your bank asks you to confirm this payment (authentication), which this page cannot do yet. No money was taken; try another card.'
      : `${attempt.failure_message ?? 'The payment failed.'} No money was taken; try another card.`;
    return { kind: 'DECLINED', message };
  }

  /**
   * After a CHECKOUT attempt SUCCEEDED (the page, or the job queued with the answer): completes
   * the session (subscription created once, by the checkout module's lock), creates its first
   * invoice, and in one transaction finalizes it, records the payment on it and links the attempt.
   * Safe to run again at any point; returns the session, or undefined when nothing succeeded.
   */
  async function finish(tenantId: string, sessionId: string): Promise<CheckoutSessionRow | undefined> {
    const paid = (await checkoutRepo.attemptsOfSession(pool, tenantId, sessionId)).find((a) => a.status === 'SUCCEEDED');
    if (!paid) return undefined;
    // cancelled (API) or expired while its payment was processing: money was taken without a subscription (docs: refund it)
    const current = await checkout.getSession(tenantId, sessionId);
    if (current.status === 'CANCELLED' || current.status === 'EXPIRED') return current;
    const session = await checkout.completeSession(tenantId, sessionId, { payment_status: 'SETTLED', payment_reference: paid.provider_payment_id });
    if (paid.invoice_id === null) {
      const record = (await loadSubscriptionRecord(pool, tenantId, session.subscription_id!))!;
      await invoicing.billing.billSubscription(tenantId, record, today(clock));
      await withTx(pool, async (tx) => {
        const attempt = (await repo.findAttempt(tx, tenantId, paid.id, true))!;
        if (attempt.invoice_id !== null) return;
        const first = await firstInvoiceOfSubscription(tx, tenantId, session.subscription_id!);
        // nothing invoiced today (the price moved to a later invoice): the payment stays on the attempt; see docs
        if (!first) return;
        // the lifecycle's finalization: refreshed, paid from prepaid credits and the cash balance as any invoice
        const invoice = first.status === 'DRAFT' ? await invoicing.lifecycle.finalizeInTx(tx, tenantId, first.id) : first;
        await recordProviderPayment(tx, tenantId, clock, invoice.id, { amountMinor: attempt.amount_minor, reference: attempt.provider_payment_id ?? attempt.id, paidAt: attempt.settled_at ?? clock.now() });
        await checkoutRepo.linkAttemptInvoice(tx, tenantId, attempt.id, invoice.id, clock.now());
      });
    }
    if (paid.payment_method_id) await adoptMethod(tenantId, session.customer_id, paid.payment_method_id);
    return session;
  }

  /** The job queued when a CHECKOUT attempt succeeded (charging's onCheckoutPaid). */
  async function finishAttempt(tenantId: string, attemptId: string): Promise<void> {
    const sessionId = await checkoutRepo.sessionOfAttempt(pool, tenantId, attemptId);
    if (sessionId) await finish(tenantId, sessionId);
  }

  /** The page's cancel button: the session becomes CANCELLED (refused while a payment is in flight or done). */
  async function cancel(current: CheckoutView): Promise<CheckoutSessionRow> {
    const attempts = await checkoutRepo.attemptsOfSession(pool, current.tenantId, current.session.id);
    if (attempts.some((a) => a.status === 'PENDING' || a.status === 'SUCCEEDED')) throw conflict('a payment of this checkout is in progress or done; it cannot be cancelled here');
    return checkout.cancelSession(current.tenantId, current.session.id);
  }

  return { view, applyCoupon, pay, finish, finishAttempt, cancel };
}

export type CheckoutPayments = ReturnType<typeof createCheckoutPayments>;
