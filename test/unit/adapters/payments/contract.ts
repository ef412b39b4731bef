// The one contract every PaymentProvider adapter passes (docs/payments.md, "Contract suite"):
// run it with the adapter and how to make its test methods and signed webhooks.
import { describe, expect, it } from 'vitest';
import { WebhookSignatureError, type PaymentProvider, type ProviderPayment, type SavedPaymentMethod } from '../../../../src/adapters/payments/provider.js';

export type TestMethod = 'succeeds' | 'declined' | 'requires_action';

export interface ContractSubject {
  provider: () => PaymentProvider;
  /**
   * What the customer's browser would send for a method that behaves so when charged; null when
   * the provider has no such method (a direct debit never asks for authentication).
   */
  method: (kind: TestMethod) => string | null;
  /** A webhook as the provider would send it about a payment: raw body and headers. */
  signedEvent: (eventId: string, paymentId: string) => Promise<{ body: string; headers: Record<string, string> }>;
  /** How many charges the provider really made (the fake's or the sandbox's count). */
  chargesMade?: () => number;
  /**
   * For providers whose charges settle later (direct debit): the charge answers PENDING and this
   * makes the provider reach the outcome its method stands for (collected, or failed).
   */
  settle?: (paymentId: string, outcome: 'succeeds' | 'declined') => Promise<void>;
  /** The failure code of the `declined` method (default `card_declined`). */
  declineCode?: string;
}

let sequence = 0;
const key = (what: string) => `${what}:${process.pid}:${Date.now()}:${(sequence += 1)}`;

export function paymentProviderContract(name: string, subject: ContractSubject): void {
  describe(`PaymentProvider contract: ${name}`, () => {
    async function customerWith(kind: TestMethod) {
      const provider = subject.provider();
      const customer = await provider.createCustomer({ name: 'ACME SAS', email: 'billing@acme.test', reference: 'cus_contract', idempotencyKey: key('customer') });
      const setup = await provider.setupPaymentMethod({ customerId: customer.id, method: subject.method(kind)!, idempotencyKey: key('setup'), holderName: 'ACME SAS', billingEmail: 'billing@acme.test' });
      expect(setup.status).toBe('SUCCEEDED');
      if (setup.status !== 'SUCCEEDED') throw new Error('setup failed');
      return { provider, customerId: customer.id, method: setup.method };
    }

    const charge = (provider: PaymentProvider, customerId: string, method: SavedPaymentMethod, idempotencyKey = key('charge')) =>
      provider.charge({ customerId, paymentMethodId: method.id, methodType: method.type, amountMinor: 14400n, currency: 'EUR', idempotencyKey, description: 'Invoice INV-1', metadata: { attempt_id: 'ptx_contract' } });

    /** The payment once settled: as answered, or (delayed providers) PENDING first, then looked up after the provider decided. */
    async function settled(provider: PaymentProvider, payment: ProviderPayment, outcome: 'succeeds' | 'declined'): Promise<ProviderPayment> {
      if (!subject.settle) return payment;
      expect(payment).toMatchObject({ status: 'PENDING', failureCode: null });
      await subject.settle(payment.id, outcome);
      return provider.getPayment(payment.id);
    }

    it('saves a method and charges it; the payment is found again with its metadata', async () => {
      const { provider, customerId, method } = await customerWith('succeeds');
      expect(method.type === 'CARD' ? method.cardLast4 : method.directDebit?.accountNumberEnding).toMatch(/^\d{2,4}$/);
      const payment = await settled(provider, await charge(provider, customerId, method), 'succeeds');
      expect(payment).toMatchObject({ status: 'SUCCEEDED', amountMinor: 14400n, currency: 'EUR', failureCode: null });
      expect(await provider.getPayment(payment.id)).toMatchObject({ id: payment.id, status: 'SUCCEEDED', amountMinor: 14400n, metadata: { attempt_id: 'ptx_contract' } });
    });

    it('answers a replayed idempotency key with the same payment and charges once', async () => {
      const { provider, customerId, method } = await customerWith('succeeds');
      const before = subject.chargesMade?.();
      const idempotencyKey = key('charge');
      const first = await charge(provider, customerId, method, idempotencyKey);
      const second = await charge(provider, customerId, method, idempotencyKey);
      expect(second.id).toBe(first.id);
      expect(second.status).toBe(first.status);
      if (before !== undefined) expect(subject.chargesMade!()).toBe(before + 1);
    });

    it('answers a decline as a FAILED payment with the reason, not an exception', async () => {
      const { provider, customerId, method } = await customerWith('declined');
      const payment = await settled(provider, await charge(provider, customerId, method), 'declined');
      expect(payment).toMatchObject({ status: 'FAILED', failureCode: subject.declineCode ?? 'card_declined', failureMessage: expect.any(String) });
      expect(payment.id).toEqual(expect.any(String));
    });

    if (subject.method('requires_action') !== null) {
      it('answers a card needing authentication as REQUIRES_ACTION', async () => {
        const { provider, customerId, method } = await customerWith('requires_action');
        const payment = await charge(provider, customerId, method);
        expect(payment).toMatchObject({ status: 'REQUIRES_ACTION', failureCode: 'authentication_required' });
      });
    }

    it('refunds part of a payment, then refuses more than what is left', async () => {
      const { provider, customerId, method } = await customerWith('succeeds');
      const payment = await settled(provider, await charge(provider, customerId, method), 'succeeds');
      const refund = await provider.refund({ paymentId: payment.id, amountMinor: 4400n, idempotencyKey: key('refund') });
      // a direct debit refund is sent by the bank later: PENDING until then
      expect(refund).toMatchObject({ paymentId: payment.id, status: subject.settle ? 'PENDING' : 'SUCCEEDED', amountMinor: 4400n });
      const tooMuch = await provider.refund({ paymentId: payment.id, amountMinor: 10001n, idempotencyKey: key('refund') }).catch((error: unknown) => error);
      expect(tooMuch instanceof Error || (tooMuch as { status: string }).status === 'FAILED').toBe(true);
    });

    it('verifies a signed webhook and refuses a tampered one', async () => {
      const { provider, customerId, method } = await customerWith('succeeds');
      const payment = await settled(provider, await charge(provider, customerId, method), 'succeeds');
      const { body, headers } = await subject.signedEvent('evt_contract_1', payment.id);
      const [event, ...more] = await provider.parseWebhook(body, headers);
      expect(more).toEqual([]);
      expect(event).toMatchObject({ id: 'evt_contract_1', paymentId: payment.id });
      // an event carries the payment's state, or names the payment for a lookup
      expect(event!.payment ?? (await provider.getPayment(event!.paymentId!))).toMatchObject({ id: payment.id, status: 'SUCCEEDED' });
      await expect(provider.parseWebhook(body.replace('evt_contract_1', 'evt_contract_2'), headers)).rejects.toThrow(WebhookSignatureError);
      await expect(provider.parseWebhook(body, {})).rejects.toThrow(WebhookSignatureError);
    });
  });
}
