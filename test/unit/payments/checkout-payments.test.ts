import { describe, expect, it } from 'vitest';
import { offeredMethods } from '../../../src/modules/payments/checkout-payments.js';

// Which methods the hosted checkout page offers: payment_methods_config within what the provider takes.
describe('offeredMethods', () => {
  const none = { card: false, directDebit: false };
  it.each([
    ['no config, sandbox', null, 'sandbox', { card: true, directDebit: false }],
    ['no config, stripe', null, 'stripe', { card: true, directDebit: false }],
    ['no config, gocardless', null, 'gocardless', { card: false, directDebit: true }],
    ['no config, no provider', null, null, none],
    ['online without config inherits', { type: 'online' }, 'sandbox', { card: true, directDebit: false }],
    ['online, config null inherits', { type: 'online', config: null }, 'gocardless', { card: false, directDebit: true }],
    ['card enabled', { type: 'online', config: { card: { enabled: true } } }, 'stripe', { card: true, directDebit: false }],
    ['card disabled', { type: 'online', config: { card: { enabled: false } } }, 'stripe', none],
    ['only direct debit named: no card', { type: 'online', config: { direct_debit: { enabled: true } } }, 'sandbox', none],
    ['direct debit enabled on gocardless', { type: 'online', config: { direct_debit: { enabled: true } } }, 'gocardless', { card: false, directDebit: true }],
    ['card enabled but the provider takes debits', { type: 'online', config: { card: { enabled: true } } }, 'gocardless', none],
    ['bank transfer', { type: 'bank_transfer' }, 'sandbox', none],
    ['external', { type: 'external' }, 'stripe', none],
  ] as const)('%s', (_name, config, provider, expected) => {
    expect(offeredMethods(config as Record<string, unknown> | null, provider)).toEqual(expected);
  });
});
