// A year of a monthly subscription with a free trial and usage, on a test clock advanced in
// steps (docs/test-clocks.md): the invoices, their dates and amounts, and the webhooks carrying
// the simulated dates, while the service clock stays on 2026-03-15.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { WebhookReceiver } from '../http/webhooks-receiver.js';
import { backdatedSubscription, invoicesOf } from './billing-support.js';

const harness = useHarness();
const receiver = new WebhookReceiver();
let baseUrl = '';
beforeAll(async () => {
  baseUrl = await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

/** Moves the clock and waits for the advance job: ADVANCING, then READY at the new time. */
async function advance(h: Harness, clockId: string, to: string) {
  const res = await h.request('POST', `/api/v1/test-clocks/${clockId}/advance`, { body: { frozen_time: to } });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ status: 'ADVANCING', target_frozen_time: new Date(to).toISOString() });
  await h.drainJobs();
  await expect.poll(async () => (await h.request('GET', `/api/v1/test-clocks/${clockId}`)).json()).toMatchObject({
    status: 'READY', frozen_time: new Date(to).toISOString(), target_frozen_time: null,
  });
}

/** `count` API calls timed at `at` (the clock's time), sent without backfilling: the window is the clock's. */
async function callsAt(h: Harness, customerId: string, at: string, count: number) {
  const events = Array.from({ length: count }, (_, i) => ({ event_id: `calls-${at}-${i}`, code: 'api_call', customer_id: customerId, timestamp: at }));
  const res = await h.request('POST', '/api/v1/events/ingest', { body: { events } });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  expect(res.json()).toMatchObject({ ingested: count });
}

describe('a year on a test clock', () => {
  it('bills a monthly subscription with a 14-day free trial and usage month by month, with exact invoices and simulated dates', async () => {
    const h = harness();
    expect(h.clock.now().toISOString()).toBe('2026-03-15T12:00:00.000Z');
    const endpoint = await h.request('POST', '/api/v1/webhooks/endpoints', {
      body: { url: `${baseUrl}/year`, event_types: ['subscription.trial_ended', 'invoice.finalized', 'test_clock.ready'] },
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const created = await h.request('POST', '/api/v1/test-clocks', { body: { frozen_time: '2026-01-01T00:00:00Z', name: 'Year with trial' } });
    expect(created.statusCode, created.body).toBe(201);
    const clock = created.json();
    expect(clock).toMatchObject({ id: expect.stringMatching(/^clock_[0-9A-Z]{26}$/), name: 'Year with trial', frozen_time: '2026-01-01T00:00:00.000Z', status: 'READY' });

    // Created on the clock: the subscription starts today for the clock, in its trial (the service clock would say ACTIVE).
    const { customerId, subscriptionId } = await backdatedSubscription(h, { freeTrialDays: 14, testClockId: clock.id, startDate: '2026-01-01' });
    expect((await h.request('GET', `/api/v1/customers/${customerId}`)).json()).toMatchObject({ test_clock_id: clock.id, created_at: '2026-01-01T00:00:00.000Z' });
    expect((await h.request('GET', `/api/v1/subscriptions/${subscriptionId}`)).json()).toMatchObject({
      status: 'TRIAL_ACTIVE', trial_duration: 14, billing_start_date: '2026-01-15',
    });
    await callsAt(h, customerId, '2026-01-01T00:00:00Z', 30); // during the free trial: never billed

    await advance(h, clock.id, '2026-01-20T00:00:00Z');
    expect((await h.request('GET', `/api/v1/subscriptions/${subscriptionId}`)).json()).toMatchObject({ status: 'ACTIVE' });
    await callsAt(h, customerId, '2026-01-20T00:00:00Z', 150); // 100 x 0.10 + 50 x 0.05 = 12.50 on Feb 1
    await advance(h, clock.id, '2026-02-10T00:00:00Z');
    await callsAt(h, customerId, '2026-02-10T00:00:00Z', 80); // 80 x 0.10 = 8.00 on Mar 1
    await advance(h, clock.id, '2026-07-01T00:00:00Z');
    // the preview is the next invoice after the clock's time, not the service clock's
    expect((await h.request('GET', `/api/v1/subscriptions/${subscriptionId}/upcoming-invoice`)).json()).toMatchObject({ invoice_date: '2026-08-01', subtotal: '59.00' });
    await advance(h, clock.id, '2027-01-01T00:00:00Z');

    const invoices = await invoicesOf(h, subscriptionId);
    const summary = invoices.map((i) => [i.invoice_date, i.invoice_number, i.status, i.subtotal, i.tax_amount, i.total, i.due_date]);
    // Platform 49.00 + 1 seat 10.00 in advance (net terms 15), API calls in arrears, 20 % VAT.
    // The trial ends on Jan 15: period 0 is [Jan 15, Feb 1), 17/31 of a month (26.87 + 5.48).
    // Each draft finalizes when its 24-hour grace period ends on the clock; 2027-01-01's is still in it.
    expect(summary).toEqual([
      ['2026-01-15', 'INV-0001', 'FINALIZED', '32.35', '6.47', '38.82', '2026-01-30'],
      ['2026-02-01', 'INV-0002', 'FINALIZED', '71.50', '14.30', '85.80', '2026-02-16'],
      ['2026-03-01', 'INV-0003', 'FINALIZED', '67.00', '13.40', '80.40', '2026-03-16'],
      ['2026-04-01', 'INV-0004', 'FINALIZED', '59.00', '11.80', '70.80', '2026-04-16'],
      ['2026-05-01', 'INV-0005', 'FINALIZED', '59.00', '11.80', '70.80', '2026-05-16'],
      ['2026-06-01', 'INV-0006', 'FINALIZED', '59.00', '11.80', '70.80', '2026-06-16'],
      ['2026-07-01', 'INV-0007', 'FINALIZED', '59.00', '11.80', '70.80', '2026-07-16'],
      ['2026-08-01', 'INV-0008', 'FINALIZED', '59.00', '11.80', '70.80', '2026-08-16'],
      ['2026-09-01', 'INV-0009', 'FINALIZED', '59.00', '11.80', '70.80', '2026-09-16'],
      ['2026-10-01', 'INV-0010', 'FINALIZED', '59.00', '11.80', '70.80', '2026-10-16'],
      ['2026-11-01', 'INV-0011', 'FINALIZED', '59.00', '11.80', '70.80', '2026-11-16'],
      ['2026-12-01', 'INV-0012', 'FINALIZED', '59.00', '11.80', '70.80', '2026-12-16'],
      ['2027-01-01', 'draft', 'DRAFT', '59.00', '11.80', '70.80', null],
    ]);
    const first = invoices[0]!;
    expect(first.line_items.map((l: Record<string, string>) => [l.name, l.start_date, l.end_date, l.amount_subtotal])).toEqual([
      ['Platform', '2026-01-15', '2026-01-31', '26.87'],
      ['Seats (seat)', '2026-01-15', '2026-01-31', '5.48'],
    ]);
    const usageOf = (invoice: Record<string, any>) => invoice.line_items.find((l: { name: string }) => l.name === 'API calls');
    expect(usageOf(invoices[1]!)).toMatchObject({ start_date: '2026-01-15', end_date: '2026-01-31', quantity: '150', amount_subtotal: '12.50' });
    expect(usageOf(invoices[2]!)).toMatchObject({ start_date: '2026-02-01', end_date: '2026-02-28', quantity: '80', amount_subtotal: '8.00' });

    // Webhooks carry the simulated times; the service clock never moved.
    expect(h.clock.now().toISOString()).toBe('2026-03-15T12:00:00.000Z');
    await h.drainJobs();
    await h.service.webhooks.deliverDue();
    await expect.poll(() => receiver.at('/year').length).toBeGreaterThanOrEqual(14);
    const received = receiver.at('/year').map((r) => r.json as Record<string, any>);
    expect(received.filter((e) => e.type === 'subscription.trial_ended').map((e) => [e.subscription_id ?? e.id, e.timestamp])).toEqual([[subscriptionId, '2026-01-15T00:00:00.000Z']]);
    const finalized = received.filter((e) => e.type === 'invoice.finalized');
    // deliveries are ordered per object, not across objects
    expect(finalized.map((e) => e.timestamp).sort()).toEqual([
      '2026-01-16T00:00:00.000Z', '2026-02-02T00:00:00.000Z', '2026-03-02T00:00:00.000Z', '2026-04-02T00:00:00.000Z', '2026-05-02T00:00:00.000Z', '2026-06-02T00:00:00.000Z',
      '2026-07-02T00:00:00.000Z', '2026-08-02T00:00:00.000Z', '2026-09-02T00:00:00.000Z', '2026-10-02T00:00:00.000Z', '2026-11-02T00:00:00.000Z', '2026-12-02T00:00:00.000Z',
    ]);
    expect(received.filter((e) => e.type === 'test_clock.ready').map((e) => [e.test_clock_id, e.frozen_time])).toEqual(
      ['2026-01-20T00:00:00.000Z', '2026-02-10T00:00:00.000Z', '2026-07-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'].map((at) => [clock.id, at]),
    );
  }, 180_000); // twelve advances, each a billing run, finalization, dunning and threshold checks at the stop
});
