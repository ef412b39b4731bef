// Spend thresholds (progressive billing, docs/credits-and-alerts.md): usage accrued in the
// current period is invoiced at once when it reaches a threshold, and the period-end invoice
// deducts what the threshold invoices billed. The plan (billing-support.ts): Platform 49.00 and 1
// seat at 10.00 per month in advance, API calls in arrears, graduated: 0.10 each up to 100, then
// 0.05; 20 % VAT. Two customers get the same events; only the first has thresholds.
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/kernel/money.js';
import { useHarness, type Harness } from '../harness/app.js';
import { backdatedSubscription, foldUsage, invoicesOf, lineSummary, sendCalls } from './billing-support.js';

const harness = useHarness();
const run = async (h: Harness) => h.service.tasks['billing.run']!({ once: true });
const sum = (invoices: Record<string, any>[], field: string) => invoices.reduce((total, i) => total.plus(i[field]), new Dec(0)).toFixed(2);
const thresholdInvoices = (invoices: Record<string, any>[]) => invoices.filter((i) => i.invoice_type === 'USAGE_THRESHOLD');

/** `count` calls on `day` for each customer, then the queued jobs (the threshold checks among them). */
async function calls(h: Harness, customers: string[], day: string, count: number, prefix: string) {
  for (const customer of customers) await sendCalls(h, customer, day, count, `${prefix}-${customer}`);
  await h.drainJobs();
}

describe('spend thresholds', () => {
  it('threshold invoices netted at period end: the period sums to the same usage billed without thresholds, to the cent', async () => {
    const h = harness();
    h.clock.set('2026-03-02T12:00:00.000Z');
    const a = await backdatedSubscription(h, { name: 'Thresholds Co', startDate: '2026-03-01' });
    const b = await backdatedSubscription(h, { name: 'Plain Co', startDate: '2026-03-01' });
    const patched = await h.request('PATCH', `/api/v1/subscriptions/${a.subscriptionId}`, {
      body: { usage_thresholds: [{ amount: '7.5', recurring: true, threshold_display_name: 'Every 7.50' }, { amount: '5.00' }] },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    // sorted, with the currency's decimals: 5.00, then 12.50, 20.00, 27.50...
    expect(patched.json().subscription.usage_thresholds).toEqual([
      { amount: '5.00', recurring: false, threshold_display_name: null },
      { amount: '7.50', recurring: true, threshold_display_name: 'Every 7.50' },
    ]);
    await run(h); // the first invoices (advance fees of March)

    await calls(h, [a.customerId, b.customerId], '2026-03-02', 40, 'd1'); // 4.00: below 5.00
    expect(thresholdInvoices(await invoicesOf(h, a.subscriptionId))).toEqual([]);
    h.clock.set('2026-03-03T12:00:00.000Z');
    await calls(h, [a.customerId, b.customerId], '2026-03-03', 20, 'd2'); // 60 calls, 6.00: first threshold
    let thresholds = thresholdInvoices(await invoicesOf(h, a.subscriptionId));
    expect(thresholds.map((i) => [i.status, i.invoice_number, i.period_start, i.period_end, i.subtotal, i.tax_amount, i.usage_threshold])).toEqual([
      ['FINALIZED', 'INV-0003', '2026-03-01', '2026-04-01', '6.00', '1.20', { crossing: 1, level: '5.00', amount: '5.00', recurring: false, threshold_display_name: null }],
    ]);
    expect(lineSummary(thresholds[0]!)).toEqual([['API calls', '2026-03-01', '2026-03-31', '6.00', '1.20']]);
    expect(thresholdInvoices(await invoicesOf(h, b.subscriptionId))).toEqual([]);

    // 160 calls: 10.00 + 60 x 0.05 = 13.00 reaches 12.50; the second invoice bills 13.00 - 6.00
    h.clock.set('2026-03-10T12:00:00.000Z');
    await calls(h, [a.customerId, b.customerId], '2026-03-10', 100, 'd3');
    thresholds = thresholdInvoices(await invoicesOf(h, a.subscriptionId));
    expect(thresholds.map((i) => [i.subtotal, i.usage_threshold.crossing, i.usage_threshold.level])).toEqual([['6.00', 1, '5.00'], ['7.00', 2, '12.50']]);
    expect(thresholds[1]!.line_items[0].description).toBe('Usage of 2026-03-01 to 2026-03-10: 160 in all, 60 on earlier threshold invoices');

    // a late event of the running period after a threshold invoice: on the period-end invoice
    await calls(h, [a.customerId, b.customerId], '2026-03-01', 3, 'early');
    // no crossing: 163 calls, 13.15
    expect(thresholdInvoices(await invoicesOf(h, a.subscriptionId))).toHaveLength(2);

    h.clock.set('2026-04-02T00:00:00.000Z'); // April's invoices: March's usage, finalized at once
    await run(h);
    const invoicesA = await invoicesOf(h, a.subscriptionId);
    const invoicesB = await invoicesOf(h, b.subscriptionId);
    const aprilA = invoicesA.find((i) => i.invoice_date === '2026-04-01')!;
    const aprilB = invoicesB.find((i) => i.invoice_date === '2026-04-01')!;
    expect(lineSummary(aprilB)).toEqual([
      ['Platform', '2026-04-01', '2026-04-30', '49.00', '9.80'],
      ['Seats (seat)', '2026-04-01', '2026-04-30', '10.00', '2.00'],
      ['API calls', '2026-03-01', '2026-03-31', '13.15', '2.63'],
    ]);
    // the same lines, then the usage already invoiced, deducted with the tax it was charged
    expect(lineSummary(aprilA)).toEqual([
      ...lineSummary(aprilB),
      ['API calls: billed on threshold invoices', '2026-03-01', '2026-03-31', '-13.00', '-2.60'],
    ]);
    expect(invoicesA.every((i) => i.status === 'FINALIZED')).toBe(true);
    for (const field of ['subtotal', 'tax_amount', 'total', 'amount_due']) expect(sum(invoicesA, field), field).toBe(sum(invoicesB, field));
    expect(sum(invoicesA, 'total')).toBe('157.38'); // March 70.80, April 72.15 + 14.43 VAT

    // March's usage after its invoice was finalized: the late-usage path bills price(all) - the whole
    // price billed (threshold invoices included), the same for both
    await calls(h, [a.customerId, b.customerId], '2026-03-20', 2, 'late');
    await foldUsage(h);
    for (const subscriptionId of [a.subscriptionId, b.subscriptionId]) {
      const upcoming = (await h.request('GET', `/api/v1/subscriptions/${subscriptionId}/upcoming-invoice`)).json();
      expect(upcoming.line_items.filter((l: Record<string, string>) => (l.name ?? '').includes('late usage')).map((l: Record<string, string>) => [l.name, l.amount_subtotal]))
        .toEqual([['API calls: late usage of 2026-03-01 to 2026-03-31', '0.10']]);
    }
   }, 180_000); // two subscriptions through a whole period: slow on a loaded machine

  it('prepaid credits pay threshold invoices at finalization, and the period-end invoice nets them without deducting credits twice', async () => {
    const h = harness();
    h.clock.set('2026-03-02T12:00:00.000Z');
    const a = await backdatedSubscription(h, { name: 'Credits Thresholds Co', startDate: '2026-03-01' });
    const b = await backdatedSubscription(h, { name: 'Credits Plain Co', startDate: '2026-03-01' });
    expect((await h.request('PATCH', `/api/v1/subscriptions/${a.subscriptionId}`, { body: { usage_thresholds: [{ amount: '5.00' }] } })).statusCode).toBe(200);
    await run(h); // March's advance fees, before any credits
    // 10.00 of usage-only credits each
    for (const customerId of [a.customerId, b.customerId]) {
      const granted = await h.request('POST', `/api/v1/customers/${customerId}/credit-grants`, { body: { name: 'Usage credits', type: 'PROMOTIONAL', amount: '10.00', applies_to: 'USAGE' } });
      expect(granted.statusCode, granted.body).toBe(201);
    }

    await calls(h, [a.customerId, b.customerId], '2026-03-02', 60, 'cr1'); // 6.00 + 1.20 VAT: the 5.00 threshold
    const [threshold] = thresholdInvoices(await invoicesOf(h, a.subscriptionId));
    // the credits pay it at its finalization, as they pay any invoice: paid in full, nothing charged
    expect(threshold).toMatchObject({ status: 'FINALIZED', total: '7.20', prepaid_credits: '7.20', amount_due: '0.00', payment_status: 'PAID' });
    expect(threshold!.prepaid_credit_lines).toEqual([expect.objectContaining({ name: 'Usage credits', amount: '7.20' })]);
    const balanceOf = async (customerId: string) => (await h.request('GET', `/api/v1/customers/${customerId}/credit-balance`)).json();
    expect(await balanceOf(a.customerId)).toMatchObject({ balance: '2.80' });

    h.clock.set('2026-03-10T12:00:00.000Z');
    await calls(h, [a.customerId, b.customerId], '2026-03-10', 100, 'cr2'); // 160 calls, 13.00 in all
    h.clock.set('2026-04-02T00:00:00.000Z');
    await run(h);
    const invoicesA = await invoicesOf(h, a.subscriptionId);
    const invoicesB = await invoicesOf(h, b.subscriptionId);
    const aprilA = invoicesA.find((i) => i.invoice_date === '2026-04-01')!;
    const aprilB = invoicesB.find((i) => i.invoice_date === '2026-04-01')!;
    // April nets the 6.00 (+1.20) already billed; the credits left (2.80) pay its usage line, no more
    expect(aprilA).toMatchObject({ status: 'FINALIZED', total: '79.20', prepaid_credits: '2.80', amount_due: '76.40' });
    expect(aprilB).toMatchObject({ status: 'FINALIZED', total: '86.40', prepaid_credits: '10.00', amount_due: '76.40' });
    // over the period: the same totals, the same 10.00 of credits used once, the same left to pay
    for (const field of ['total', 'prepaid_credits', 'amount_due']) expect(sum(invoicesA, field), field).toBe(sum(invoicesB, field));
    expect(sum(invoicesA, 'prepaid_credits')).toBe('10.00');
    for (const customerId of [a.customerId, b.customerId]) {
      expect(await balanceOf(customerId)).toMatchObject({ balance: '0.00' });
      const consumed = (await h.request('GET', `/api/v1/customers/${customerId}/credit-ledger`, { query: { type: 'CONSUMPTION', per_page: '100' } })).json().data;
      expect(consumed.reduce((total: Dec, e: { amount: string }) => total.plus(e.amount), new Dec(0)).toFixed(2)).toBe('-10.00');
    }
  }, 180_000);

  it('a test clock\'s advance checks thresholds at the clock\'s frozen time; the periodic re-check leaves the clock alone', async () => {
    const h = harness();
    h.clock.set('2026-03-15T12:00:00.000Z');
    const created = await h.request('POST', '/api/v1/test-clocks', { body: { frozen_time: '2026-03-02T12:00:00Z', name: 'thresholds' } });
    expect(created.statusCode, created.body).toBe(201);
    const clockId = created.json().id as string;
    const advance = async (to: string) => {
      const res = await h.request('POST', `/api/v1/test-clocks/${clockId}/advance`, { body: { frozen_time: to } });
      expect(res.statusCode, res.body).toBe(200);
      await h.drainJobs();
      await expect.poll(async () => (await h.request('GET', `/api/v1/test-clocks/${clockId}`)).json()).toMatchObject({ status: 'READY', frozen_time: new Date(to).toISOString() });
    };
    const a = await backdatedSubscription(h, { name: 'Clock Co', startDate: '2026-03-01', testClockId: clockId });
    expect((await h.request('PATCH', `/api/v1/subscriptions/${a.subscriptionId}`, { body: { usage_thresholds: [{ amount: '20.00' }] } })).statusCode).toBe(200);
    await advance('2026-03-02T13:00:00Z'); // March's advance fees
    await calls(h, [a.customerId], '2026-03-02', 60, 'clock'); // 6.00: below 20.00 when ingested
    // the threshold lowered under the usage: nothing checks it until the clock moves
    expect((await h.request('PATCH', `/api/v1/subscriptions/${a.subscriptionId}`, { body: { usage_thresholds: [{ amount: '5.00' }] } })).statusCode).toBe(200);
    await run(h);
    expect(thresholdInvoices(await invoicesOf(h, a.subscriptionId))).toEqual([]);

    await advance('2026-03-10T00:00:00Z');
    const [threshold] = thresholdInvoices(await invoicesOf(h, a.subscriptionId));
    // checked at the clock's first stop (its time when the advance began), not at the service's time
    expect(threshold).toMatchObject({ status: 'FINALIZED', invoice_date: '2026-03-02', subtotal: '6.00', finalized_at: '2026-03-02T13:00:00.000Z', usage_threshold: expect.objectContaining({ crossing: 1 }) });

    await advance('2026-04-02T00:00:00Z');
    const april = (await invoicesOf(h, a.subscriptionId)).find((i) => i.invoice_date === '2026-04-01')!;
    expect(lineSummary(april).filter(([name]) => name!.startsWith('API calls'))).toEqual([
      ['API calls', '2026-03-01', '2026-03-31', '6.00', '1.20'],
      ['API calls: billed on threshold invoices', '2026-03-01', '2026-03-31', '-6.00', '-1.20'],
    ]);
    expect(thresholdInvoices(await invoicesOf(h, a.subscriptionId))).toHaveLength(1);
  }, 180_000);

  it('racing batches crossing one threshold give one threshold invoice', async () => {
    const h = harness();
    h.clock.set('2026-03-02T12:00:00.000Z');
    const a = await backdatedSubscription(h, { name: 'Race Co', startDate: '2026-03-01' });
    expect((await h.request('PATCH', `/api/v1/subscriptions/${a.subscriptionId}`, { body: { usage_thresholds: [{ amount: '10.00' }] } })).statusCode).toBe(200);
    // the customer pays automatically: the threshold invoice is charged like any finalized invoice
    const card = await h.request('POST', `/api/v1/customers/${a.customerId}/payment-methods`, { body: { card_number: '4242424242424242' } });
    expect(card.statusCode, card.body).toBe(201);
    await run(h);
    const batch = (tag: string) => ({
      events: Array.from({ length: 60 }, (_, i) => ({ event_id: `${tag}-${i}`, code: 'api_call', customer_id: a.customerId, timestamp: '2026-03-02T10:00:00Z', properties: {} })),
      allow_backfilling: true,
    });
    // each batch alone stays below 10.00 (60 calls, 6.00); together they reach it (120 calls, 11.00)
    const answers = await Promise.all([h.request('POST', '/api/v1/events/ingest', { body: batch('x') }), h.request('POST', '/api/v1/events/ingest', { body: batch('y') })]);
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200]);
    // both checks at once (the queued jobs, and two more racing through the API)
    const created = await Promise.all([h.service.invoicing.thresholds.check(h.tenant.id, [a.subscriptionId]), h.service.invoicing.thresholds.check(h.tenant.id, [a.subscriptionId]), h.drainJobs()]);
    expect(created.slice(0, 2).flat()).toHaveLength(1);
    await h.drainJobs();
    await run(h); // the periodic re-check finds nothing new
    const thresholds = thresholdInvoices(await invoicesOf(h, a.subscriptionId));
    expect(thresholds.map((i) => [i.subtotal, i.usage_threshold.crossing, i.status, i.payment_status])).toEqual([['11.00', 1, 'FINALIZED', 'PAID']]);
   }, 120_000);

  it('validates thresholds with the error contract, on plan versions and subscriptions', async () => {
    const h = harness();
    h.clock.set('2026-03-02T12:00:00.000Z');
    const a = await backdatedSubscription(h, { startDate: '2026-03-01' });
    const cases: [unknown, string][] = [
      [[{ amount: 5 }], 'usage_thresholds[0].amount must be a decimal string such as "100.00", not a JSON number'],
      [[{ amount: '0.00' }], 'usage_thresholds[0].amount must be above zero, e.g. "100.00"'],
      [[{ amount: '1.234' }], 'usage_thresholds[0].amount has more than 2 decimals for EUR, e.g. "1.23"'],
      [[{ amount: '5', recurring: true }, { amount: '6', recurring: true }], 'usage_thresholds[1].recurring: at most one threshold may be recurring'],
      [[{ amount: '5' }, { amount: '5.00' }], 'usage_thresholds[1].amount "5.00" is already a fixed threshold of this list'],
    ];
    for (const [thresholds, message] of cases) {
      const res = await h.request('PATCH', `/api/v1/subscriptions/${a.subscriptionId}`, { body: { usage_thresholds: thresholds } });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining(message) });
    }
    // nothing was written
    expect((await h.request('GET', `/api/v1/subscriptions/${a.subscriptionId}`)).json().usage_thresholds).toEqual([]);
    // a plan version's thresholds are copied by new subscriptions; a request's own win; [] removes them
    const plan = (await h.request('GET', `/api/v1/plans/${a.plan.planId}`)).json();
    const replaced = await h.request('PUT', `/api/v1/plans/${a.plan.planId}`, {
      body: { name: plan.name, currency: 'EUR', components: plan.price_components.map((c: Record<string, unknown>) => ({ name: c.name, product_id: c.product_id, fee: c.fee })), usage_thresholds: [{ amount: '100' }] },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json().usage_thresholds).toEqual([{ amount: '100.00', recurring: false, threshold_display_name: null }]);
    const badPlan = await h.request('PUT', `/api/v1/plans/${a.plan.planId}`, { body: { name: plan.name, currency: 'EUR', components: [], usage_thresholds: [{ amount: '-1' }] } });
    expect(badPlan.statusCode).toBe(400);
    expect(badPlan.json().message).toContain('usage_thresholds[0].amount');
    const create = (extra: Record<string, unknown>) => h.request('POST', '/api/v1/subscriptions', {
      body: { customer_id_or_alias: a.customerId, plan_id: a.plan.planId, start_date: '2026-03-01', ...extra },
    });
    const inherited = await create({});
    expect(inherited.statusCode, inherited.body).toBe(201);
    expect((await h.request('GET', `/api/v1/subscriptions/${inherited.json().id}`)).json().usage_thresholds).toEqual([{ amount: '100.00', recurring: false, threshold_display_name: null }]);
    const none = await create({ usage_thresholds: [] });
    expect((await h.request('GET', `/api/v1/subscriptions/${none.json().id}`)).json().usage_thresholds).toEqual([]);
  });
});
