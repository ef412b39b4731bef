// No accepted event left unbilled (issue 15; docs/usage.md, "Late usage"): usage that arrives for
// a period whose invoice is already finalized is billed on the next invoice, as the difference of
// prices, or on an adjustment invoice once the subscription has ended. The plan
// (billing-support.ts): Platform 49.00 and 1 seat at 10.00 per month in advance, API calls in
// arrears, graduated: 0.10 each up to 100, then 0.05; 20 % VAT; drafts finalize 24 h after their
// invoice date.
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/kernel/money.js';
import { useHarness, type Harness } from '../harness/app.js';
import { backdatedSubscription, foldUsage, invoicesOf, lineSummary, sendCalls } from './billing-support.js';

const harness = useHarness();
const run = async (h: Harness) => h.service.tasks['billing.run']!({ once: true });
const totals = (invoices: Record<string, any>[]) => invoices.map((i) => [i.invoice_type, i.invoice_date, i.status, i.subtotal, i.tax_amount, i.total]);

async function usageOf(h: Harness, customerId: string, start: string, end: string, metricId: string): Promise<string> {
  const res = await h.request('GET', `/api/v1/usage/customer/${customerId}?start_date=${start}&end_date=${end}&metric_id=${metricId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().usage[0].total_value;
}

describe('late usage', () => {
  it('bills usage of finalized periods on the next invoice, as price(all usage) - price(billed), once', async () => {
    const h = harness();
    h.clock.set('2026-03-15T12:00:00.000Z');
    const { customerId, subscriptionId, metricId } = await backdatedSubscription(h, { name: 'Late Co' });
    await sendCalls(h, customerId, '2026-02-10', 80, 'ontime'); // 80 x 0.10 = 8.00, on March's invoice
    await run(h); // January, February and March, finalized at once (their grace periods are over)
    expect(totals(await invoicesOf(h, subscriptionId))).toEqual([
      ['RECURRING', '2026-01-01', 'FINALIZED', '59.00', '11.80', '70.80'],
      ['RECURRING', '2026-02-01', 'FINALIZED', '59.00', '11.80', '70.80'],
      ['RECURRING', '2026-03-01', 'FINALIZED', '67.00', '13.40', '80.40'],
    ]);

    // sent after those invoices were finalized (the report: answered {"ingested":1} and never billed)
    expect(await sendCalls(h, customerId, '2026-01-20', 150, 'late')).toEqual({ ingested: 150, in_finalized_periods: 150, unknown_customer_events: 0 });
    expect(await sendCalls(h, customerId, '2026-02-11', 40, 'late')).toEqual({ ingested: 40, in_finalized_periods: 40, unknown_customer_events: 0 });
    // an event of the running period is not late
    expect(await sendCalls(h, customerId, '2026-03-14', 1, 'now')).toEqual({ ingested: 1, in_finalized_periods: 0, unknown_customer_events: 0 });
    await foldUsage(h);
    // usage queries show them in the period they belong to
    expect(await usageOf(h, customerId, '2026-01-01', '2026-02-01', metricId)).toBe('150');
    expect(await usageOf(h, customerId, '2026-02-01', '2026-03-01', metricId)).toBe('120');

    // the preview already shows them
    const upcoming = (await h.request('GET', `/api/v1/subscriptions/${subscriptionId}/upcoming-invoice`)).json();
    expect(upcoming.line_items.map((l: Record<string, string>) => [l.name, l.amount_subtotal])).toContainEqual(['API calls: late usage of 2026-01-01 to 2026-01-31', '12.50']);

    h.clock.set('2026-04-02T00:00:00.000Z'); // April's invoice is created and, its grace period over, finalized
    await run(h);
    const invoices = await invoicesOf(h, subscriptionId);
    const april = invoices[3]!;
    expect(lineSummary(april)).toEqual([
      ['Platform', '2026-04-01', '2026-04-30', '49.00', '9.80'],
      ['Seats (seat)', '2026-04-01', '2026-04-30', '10.00', '2.00'],
      ['API calls', '2026-03-01', '2026-03-31', '0.10', '0.02'],
      // January: price(150) = 100 x 0.10 + 50 x 0.05 = 12.50, nothing billed before
      ['API calls: late usage of 2026-01-01 to 2026-01-31', '2026-01-01', '2026-01-31', '12.50', '2.50'],
      // February: price(120) = 100 x 0.10 + 20 x 0.05 = 11.00, minus the 8.00 billed: 3.00 (not 40 x 0.10 = 4.00)
      ['API calls: late usage of 2026-02-01 to 2026-02-28', '2026-02-01', '2026-02-28', '3.00', '0.60'],
    ]);
    expect(april.line_items[4]).toMatchObject({ quantity: '40', description: 'Usage of 2026-02-01 to 2026-02-28 received after its invoice was finalized: 120 in all, 80 billed before' });
    expect(totals([april])).toEqual([['RECURRING', '2026-04-01', 'FINALIZED', '74.60', '14.92', '89.52']]);

    // billed once: May's invoice has no late line, and more late usage is billed as the new difference
    await sendCalls(h, customerId, '2026-02-12', 100, 'later'); // price(220) = 10.00 + 120 x 0.05 = 16.00, minus 11.00 billed: 5.00
    await foldUsage(h);
    h.clock.set('2026-05-02T00:00:00.000Z');
    await run(h);
    h.clock.set('2026-06-02T00:00:00.000Z');
    await run(h);
    const [may, june] = (await invoicesOf(h, subscriptionId)).slice(4);
    expect(lineSummary(may!).slice(2)).toEqual([
      ['API calls', '2026-04-01', '2026-04-30', '0.00', '0.00'],
      ['API calls: late usage of 2026-02-01 to 2026-02-28', '2026-02-01', '2026-02-28', '5.00', '1.00'],
    ]);
    expect(lineSummary(june!).slice(2)).toEqual([['API calls', '2026-05-01', '2026-05-31', '0.00', '0.00']]);
    h.clock.set('2026-03-15T12:00:00.000Z');
  });

  it('bills late usage of an ended subscription on an adjustment invoice', async () => {
    const h = harness();
    h.clock.set('2026-01-01T09:00:00.000Z');
    const { customerId, subscriptionId } = await backdatedSubscription(h, { name: 'Leaver' });
    await run(h);
    h.clock.set('2026-01-21T09:00:00.000Z');
    await sendCalls(h, customerId, '2026-01-05', 10, 'leave'); // 1.00 on the final invoice
    expect((await h.request('POST', `/api/v1/subscriptions/${subscriptionId}/cancel`, { body: { effective_date: '2026-01-21' } })).statusCode).toBe(200);
    await run(h);
    h.clock.set('2026-01-22T09:00:00.000Z'); // the final invoice is finalized
    await run(h);
    expect((await invoicesOf(h, subscriptionId)).map((i) => i.status)).toEqual(['FINALIZED', 'FINALIZED']);

    h.clock.set('2026-01-25T09:00:00.000Z');
    expect(await sendCalls(h, customerId, '2026-01-10', 30, 'after')).toMatchObject({ in_finalized_periods: 30 });
    await foldUsage(h);
    await run(h);
    h.clock.set('2026-01-26T09:00:00.000Z'); // its grace period is over
    await run(h);
    const invoices = await invoicesOf(h, subscriptionId);
    expect(totals(invoices.slice(2))).toEqual([['ADJUSTMENT', '2026-01-25', 'FINALIZED', '3.00', '0.60', '3.60']]);
    // price(40) = 4.00 - 1.00 billed on the final invoice
    expect(lineSummary(invoices[2]!)).toEqual([['API calls: late usage of 2026-01-01 to 2026-01-20', '2026-01-01', '2026-01-20', '3.00', '0.60']]);
    expect(invoices[2]!.coupons).toEqual([]);

    h.clock.set('2026-03-02T09:00:00.000Z');
    await run(h);
    expect(await invoicesOf(h, subscriptionId)).toHaveLength(3);
    h.clock.set('2026-03-15T12:00:00.000Z');
  });
  it('an event in flight while its period is finalized lands in that invoice or late in the next one, never both, never neither', async () => {
    const h = harness();
    h.clock.set('2026-03-31T12:00:00.000Z');
    const { customerId, subscriptionId } = await backdatedSubscription(h, { name: 'Racer', startDate: '2026-03-01' });
    await run(h);
    await sendCalls(h, customerId, '2026-03-20', 10, 'race-before');
    h.clock.set('2026-04-01T06:00:00.000Z'); // April's draft, in its grace period, bills March's usage
    await run(h);
    const april = (await invoicesOf(h, subscriptionId))[1]!;
    const call = (id: string) => ({ event_id: id, code: 'api_call', customer_id: customerId, timestamp: '2026-03-31T10:00:00Z' });

    // One ingest statement starts before the finalization and commits after it: a transaction of
    // the test holds its event id in the dedup ledger, so the statement waits mid-write.
    const holder = await h.db.pool.connect();
    await holder.query('BEGIN');
    await holder.query(`INSERT INTO usage_event_ids (tenant_key, event_id, payload_hash) VALUES ((SELECT key FROM tenants WHERE id = $1), 'race-held', '\\x00')`, [h.tenant.id]);
    const held = h.request('POST', '/api/v1/events/ingest', { body: { events: [call('race-held')] } });
    await expect.poll(async () => (await h.db.pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO usage_event_ids%'`,
    )).rows[0].n, { timeout: 30_000 }).toBe(1);
    // and 6 more batches race with the finalization itself
    const racing = Array.from({ length: 6 }, (_, b) => h.request('POST', '/api/v1/events/ingest', { body: { events: Array.from({ length: 5 }, (_, i) => call(`race-${b}-${i}`)) } }));
    const finalized = await h.request('POST', `/api/v1/invoices/${april.id}/finalize`, { body: {} });
    expect(finalized.statusCode, finalized.body).toBe(200);
    await holder.query('ROLLBACK');
    holder.release();
    for (const answer of await Promise.all([held, ...racing])) expect(answer.json()).toMatchObject({ ingested: expect.any(Number) });
    expect((await held).json().ingested).toBe(1);

    await foldUsage(h);
    h.clock.set('2026-05-02T00:00:00.000Z');
    await run(h);
    const [aprilNow, may] = (await invoicesOf(h, subscriptionId)).slice(1);
    const usageLine = aprilNow!.line_items.find((l: { name: string }) => l.name === 'API calls');
    const lateLine = may!.line_items.find((l: { name: string }) => l.name === 'API calls: late usage of 2026-03-01 to 2026-03-31');
    // 41 events of March in all: those April's invoice saw, and the rest (the held one at least) late on May's
    expect(lateLine).toBeDefined();
    expect(new Dec(usageLine.quantity).plus(lateLine.quantity).toString()).toBe('41');
    expect(new Dec(usageLine.amount_subtotal).plus(lateLine.amount_subtotal).toFixed(2)).toBe('4.10'); // 41 x 0.10
    h.clock.set('2026-03-15T12:00:00.000Z');
  });
  it('waits the tenant\'s grace period for late usage before finalizing: usage within it is billed on time', async () => {
    const h = harness();
    h.clock.set('2026-03-31T12:00:00.000Z');
    const { customerId, subscriptionId } = await backdatedSubscription(h, { name: 'Patient', startDate: '2026-03-01' });
    const entity = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
    const patched = await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { grace_period_hours: 72 } });
    expect(patched.statusCode, patched.body).toBe(200);
    try {
      await run(h);
      h.clock.set('2026-04-03T12:00:00.000Z'); // April's draft waits until 2026-04-04 00:00 UTC
      await run(h);
      expect((await invoicesOf(h, subscriptionId))[1]).toMatchObject({ invoice_date: '2026-04-01', status: 'DRAFT' });
      expect(await sendCalls(h, customerId, '2026-03-30', 30, 'grace')).toEqual({ ingested: 30, in_finalized_periods: 0, unknown_customer_events: 0 });
      h.clock.set('2026-04-04T00:00:00.000Z');
      await run(h);
      const april = (await invoicesOf(h, subscriptionId))[1]!;
      expect(april.status).toBe('FINALIZED');
      expect(lineSummary(april)[2]).toEqual(['API calls', '2026-03-01', '2026-03-31', '3.00', '0.60']);
      // nothing of March is late: May has no late line
      await foldUsage(h);
      h.clock.set('2026-05-04T00:00:00.000Z');
      await run(h);
      expect(lineSummary((await invoicesOf(h, subscriptionId))[2]!).map((l) => l[0])).toEqual(['Platform', 'Seats (seat)', 'API calls']);
    } finally {
      await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { grace_period_hours: 24 } });
      h.clock.set('2026-03-15T12:00:00.000Z');
    }
  });
  it('a draft created after its grace period is final at creation: usage arriving before it is finalized is billed late on the next invoice, once', async () => {
    const h = harness();
    h.clock.set('2026-03-31T12:00:00.000Z');
    const { customerId, subscriptionId } = await backdatedSubscription(h, { name: 'Catching up', startDate: '2026-03-01' });
    await run(h);
    await sendCalls(h, customerId, '2026-03-20', 10, 'seen');
    h.clock.set('2026-04-02T12:00:00.000Z'); // April's draft is created after its grace period ended (2026-04-02 00:00 UTC)
    await h.service.invoicing.billing.runAll();
    expect((await invoicesOf(h, subscriptionId))[1]).toMatchObject({ invoice_date: '2026-04-01', status: 'DRAFT' });
    // its March usage is billed as of its creation: these events are late already
    expect(await sendCalls(h, customerId, '2026-03-25', 5, 'after')).toEqual({ ingested: 5, in_finalized_periods: 5, unknown_customer_events: 0 });
    await foldUsage(h);
    await run(h); // finalizes the draft as it was computed
    const april = (await invoicesOf(h, subscriptionId))[1]!;
    expect(april.status).toBe('FINALIZED');
    expect(lineSummary(april)[2]).toEqual(['API calls', '2026-03-01', '2026-03-31', '1.00', '0.20']);
    h.clock.set('2026-05-02T12:00:00.000Z');
    await run(h);
    const may = (await invoicesOf(h, subscriptionId))[2]!;
    expect(lineSummary(may).slice(2)).toEqual([
      ['API calls', '2026-04-01', '2026-04-30', '0.00', '0.00'],
      ['API calls: late usage of 2026-03-01 to 2026-03-31', '2026-03-01', '2026-03-31', '0.50', '0.10'],
    ]);
    h.clock.set('2026-03-15T12:00:00.000Z');
  });
});
