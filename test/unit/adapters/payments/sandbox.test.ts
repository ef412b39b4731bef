import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/kernel/clock.js';
import { createSandboxProvider, SANDBOX_DELAY_MS } from '../../../../src/adapters/payments/sandbox.js';
import { paymentProviderContract, type TestMethod } from './contract.js';

const clock = new ManualClock('2026-04-01T10:00:00.000Z');
const sandbox = createSandboxProvider(clock);
const CARDS: Record<TestMethod, string> = { succeeds: '4242424242424242', declined: '4000000000000002', requires_action: '4000002500003155' };

paymentProviderContract('sandbox', {
  provider: () => sandbox,
  method: (kind) => CARDS[kind],
  signedEvent: async (eventId, paymentId) => sandbox.signEvent({ id: eventId, type: 'payment.succeeded', payment_id: paymentId }),
});

describe('sandbox provider', () => {
  it('keeps the delayed card PENDING until its delay has passed on the clock', async () => {
    const setup = await sandbox.setupPaymentMethod({ customerId: 'cus_sbx', method: '4000 0000 0000 0077', idempotencyKey: 'setup-delayed' });
    if (setup.status !== 'SUCCEEDED') throw new Error('setup failed');
    const payment = await sandbox.charge({ customerId: 'cus_sbx', paymentMethodId: setup.method.id, amountMinor: 500n, currency: 'EUR', idempotencyKey: 'delayed-1', description: 'x', metadata: {} });
    expect(payment.status).toBe('PENDING');
    clock.advance(SANDBOX_DELAY_MS);
    expect((await sandbox.getPayment(payment.id)).status).toBe('SUCCEEDED');
    // a replay after the delay answers the same payment
    expect((await sandbox.charge({ customerId: 'cus_sbx', paymentMethodId: setup.method.id, amountMinor: 500n, currency: 'EUR', idempotencyKey: 'delayed-1', description: 'x', metadata: {} })).id).toBe(payment.id);
  });

  it('refuses a number that is not one of its test cards', async () => {
    expect(await sandbox.setupPaymentMethod({ customerId: 'cus_sbx', method: '4111111111111111', idempotencyKey: 'k' })).toMatchObject({ status: 'FAILED', failureCode: 'invalid_number' });
  });
});
