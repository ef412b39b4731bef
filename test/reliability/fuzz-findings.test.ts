// Requests the fuzzer once answered with a 500, kept as plain regression tests (the default seed
// may not draw them again).
import { expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';

const harness = useHarness();

it('refuses a balance amount past the stored bigint, and a sum past it, as 400 naming amount', async () => {
  const h = harness();
  const customer = (await h.request('POST', '/api/v1/customers', { body: { name: 'ACME', currency: 'EUR' } })).json();
  const url = `/api/v1/customers/${customer.id}/balance`;
  // FUZZ_SEED=7: {"amount":"9223372036854775808"} was a 500 (bigint out of range in PostgreSQL).
  const huge = await h.request('POST', url, { body: { amount: '9223372036854775808' } });
  expect(huge.statusCode).toBe(400);
  expect(huge.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('amount') });
  const largest = await h.request('POST', url, { body: { amount: '92233720368547758.07' } });
  expect(largest.statusCode, largest.body).toBe(200);
  const past = await h.request('POST', url, { body: { amount: '0.01' } });
  expect(past.statusCode).toBe(400);
  expect(past.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('amount') });
  expect((await h.request('GET', `/api/v1/customers/${customer.id}`)).json().balance).toBe('92233720368547758.07');
});
