// The test harness with the Stripe fake started beside it, the tenant's secret key known to the
// fake and the service pointed at it (STRIPE_API_BASE): the set-up every Stripe test shares.
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../src/config/index.js';
import { useHarness } from './app.js';
import { startStripeFake, type StripeFake } from './stripe-fake.js';

export function useStripeHarness(secretKey: string): { harness: ReturnType<typeof useHarness>; fake: StripeFake } {
  const overrides: Partial<Config> = {};
  const stripe = { fake: undefined as unknown as StripeFake };
  beforeAll(async () => {
    stripe.fake = await startStripeFake();
    stripe.fake.keys.add(secretKey);
    overrides.stripeApiBase = stripe.fake.apiBase;
  });
  afterAll(async () => {
    await stripe.fake.close();
  });
  return { harness: useHarness(overrides), get fake() { return stripe.fake; } };
}
