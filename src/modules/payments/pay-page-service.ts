// What the invoice pay page shows and does (docs/payments.md, "Pages"): the invoice a pay link
// opens, the customer's saved methods, and one payment with a saved or a new method, charged at
// once through the same attempt code as finalization (charging.charge).
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import { findInvoice, type InvoiceRow } from '../invoices/index.js';
import type { ProviderName } from '../../adapters/payments/provider.js';
import type { Providers } from './providers.js';
import { idempotencyKeyOf, type Charging } from './charging.js';
import type { PaymentsService } from './service.js';
import { payable, type PayLinks } from './pay-links.js';
import * as repo from './repository.js';
import { checkedPaymentMethodId, elementsKeyOf } from './stripe-elements.js';
import type { AttemptRow, PaymentMethodRow } from './repository.js';

export interface PayView {
  tenantId: string;
  invoice: InvoiceRow;
  /** The tenant's provider now (null: no online payment). */
  provider: ProviderName | null;
  /** Stripe's publishable key when the tenant's provider is Stripe and its connection has one: the page offers a new card through Elements. */
  publishableKey: string | null;
  /** Saved methods of the customer usable with that provider. */
  methods: PaymentMethodRow[];
  defaultMethodId: string | null;
  /** The invoice's latest payment waiting for the customer's authentication (sandbox only: its step page can complete it). */
  needsAuthentication: AttemptRow | null;
}

/** A saved method (`methodId`), a new card (`cardNumber`, sandbox) or a new Stripe PaymentMethod Elements created (`stripePaymentMethodId`). */
export type PayWith = { methodId: string } | { cardNumber: string } | { stripePaymentMethodId: string };

export function createPayPageService(deps: { pool: Pool; clock: Clock; providers: Providers; charging: Charging; service: PaymentsService; links: PayLinks }) {
  const { pool, clock, providers, charging, links } = deps;

  async function view(token: string): Promise<PayView | undefined> {
    const link = await links.resolve(pool, token);
    if (!link) return undefined;
    const invoice = await findInvoice(pool, link.tenantId, link.invoiceId);
    if (!invoice) return undefined;
    const provider = (await providers.forTenant(pool, link.tenantId))?.name ?? null;
    const methods = (await repo.listPaymentMethods(pool, link.tenantId, invoice.customer_id)).filter((m) => m.provider === provider);
    const settings = await repo.findCustomerSettings(pool, link.tenantId, invoice.customer_id);
    // the attempt still waiting for the customer's authentication, whatever came after it (attempts made in one
    // millisecond have no reliable order; a later failed one does not end the bank's question)
    const waiting = (await repo.listAttemptsOfInvoice(pool, link.tenantId, invoice.id))
      .filter((a) => a.status === 'REQUIRES_ACTION' && a.provider === 'sandbox' && a.provider_payment_id).at(-1);
    const needsAuthentication = waiting && payable(invoice) ? waiting : null;
    const publishableKey = await elementsKeyOf(pool, providers, link.tenantId);
    return { tenantId: link.tenantId, invoice, provider, publishableKey, methods, defaultMethodId: settings.default_payment_method_id, needsAuthentication };
  }

  /**
   * Pays what is still due. One payment at a time per invoice: under an advisory lock of the
   * invoice, an attempt still PENDING (this page's or finalization's) refuses a second one, so a
   * double submit never charges twice. Returns the attempt as the provider left it.
   */
  async function pay(current: PayView, using: PayWith): Promise<AttemptRow> {
    const { tenantId, invoice } = current;
    if (!payable(invoice)) throw conflict('this invoice has nothing left to pay');
    let method: PaymentMethodRow | undefined;
    if ('methodId' in using) {
      method = current.methods.find((m) => m.id === using.methodId);
      if (!method) throw badRequest('choose one of your saved cards or enter a new card');
    } else if ('stripePaymentMethodId' in using) {
      if (current.provider !== 'stripe') throw badRequest('a Stripe payment method can only be given on invoices of Stripe tenants');
      // saved (a SetupIntent, as the API's add-method route), not made the default until it has paid
      method = await deps.service.attachMethod(tenantId, invoice.customer_id, { provider_payment_method_id: checkedPaymentMethodId(using.stripePaymentMethodId), set_default: false });
    } else {
      if (current.provider !== 'sandbox') throw badRequest('a card number can only be typed on sandbox tenants\' pay pages');
      const cardNumber = using.cardNumber.replace(/[\s-]/g, '');
      if (!/^\d{12,19}$/.test(cardNumber)) throw badRequest('card number must be 12 to 19 digits, e.g. 4242 4242 4242 4242');
      // saved, not made the default, until it has paid: a declined card is removed again below
      method = await deps.service.attachMethod(tenantId, invoice.customer_id, { card_number: cardNumber, set_default: false });
    }
    const isNew = !('methodId' in using);
    const chosen = method;
    let attemptId: string;
    try {
      attemptId = await withTx(pool, async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`pay:${tenantId}:${invoice.id}`]);
        const fresh = (await findInvoice(tx, tenantId, invoice.id))!;
        if (!payable(fresh)) throw conflict('this invoice has nothing left to pay');
        const attempts = await repo.listAttemptsOfInvoice(tx, tenantId, invoice.id);
        if (attempts.some((a) => a.status === 'PENDING')) throw conflict('a payment of this invoice is already in progress; reload the page in a minute');
        const now = clock.now();
        const id = newId('paymentAttempt', now.getTime());
        await repo.insertAttempt(tx, {
          id, tenant_id: tenantId, invoice_id: invoice.id, customer_id: invoice.customer_id, payment_method_id: chosen.id, provider: chosen.provider,
          occasion: 'PAY_PAGE', retry_number: 0, amount_minor: fresh.amount_due_minor - fresh.amount_paid_minor, currency: fresh.currency, status: 'PENDING',
          idempotency_key: idempotencyKeyOf(id), provider_payment_id: null, failure_code: null, failure_message: null, requested_at: null, settled_at: null,
          created_at: now, updated_at: now,
        });
        return id;
      });
    } catch (error) {
      // a second submit that lost the race: the method it saved is not needed
      if (isNew) await deps.service.detachMethod(tenantId, invoice.customer_id, method.id);
      throw error;
    }
    const attempt = (await charging.charge(tenantId, attemptId))!;
    // a sandbox card asking for authentication stays saved: the authentication step pays with it
    const awaitsStep = attempt.status === 'REQUIRES_ACTION' && attempt.provider === 'sandbox';
    if (isNew && (attempt.status === 'FAILED' || (attempt.status === 'REQUIRES_ACTION' && !awaitsStep))) await deps.service.detachMethod(tenantId, invoice.customer_id, method.id);
    if (isNew && attempt.status === 'SUCCEEDED' && !current.defaultMethodId) await deps.service.updateSettings(tenantId, invoice.customer_id, { default_payment_method_id: method.id });
    return attempt;
  }

  /**
   * The customer's answer on the sandbox's authentication step of a REQUIRES_ACTION payment of
   * this invoice: the same payment transaction becomes SUCCEEDED (recorded on the invoice, as any
   * payment) or FAILED. Applied as a provider event with one id per transaction, so a second
   * answer (double submit, approve after fail) changes nothing and nothing is charged twice.
   */
  async function authenticate(current: PayView, attemptId: string, approved: boolean): Promise<AttemptRow> {
    const { tenantId, invoice } = current;
    const attempt = await repo.findAttempt(pool, tenantId, attemptId);
    if (!attempt || attempt.invoice_id !== invoice.id || attempt.provider !== 'sandbox' || !attempt.provider_payment_id) throw notFound('payment');
    if (attempt.status !== 'REQUIRES_ACTION') return attempt;
    if (!payable(invoice)) throw conflict('this invoice has nothing left to pay');
    const payment = providers.sandbox.authenticate(attempt.provider_payment_id, approved);
    // the metadata the charge sent, so the event finds its transaction after a restart too
    const metadata = { tenant_id: tenantId, attempt_id: attempt.id, invoice_id: invoice.id };
    await charging.applyEvent(tenantId, 'sandbox', { id: `sandbox_authentication:${attempt.id}`, type: approved ? 'authentication.succeeded' : 'authentication.failed', payment: { ...payment, metadata } });
    const after = (await repo.findAttempt(pool, tenantId, attempt.id))!;
    if (after.status === 'SUCCEEDED' && after.payment_method_id && !current.defaultMethodId) {
      await deps.service.updateSettings(tenantId, invoice.customer_id, { default_payment_method_id: after.payment_method_id });
    }
    return after;
  }

  return { view, pay, authenticate };
}

export type PayPageService = ReturnType<typeof createPayPageService>;
