// Events before their customer (issue 15; docs/usage.md, "Events before their customer"): events
// for an alias no customer has yet are kept and count once a customer takes the alias, invoices
// not yet finalized included; and a migration may load usage before or after its subscriptions
// and is billed the same total. Plan as in billing-support.ts (API calls 0.10 up to 100, then
// 0.05; 20 % VAT; 24-hour grace period).
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/kernel/money.js';
import { useHarness, type Harness } from '../harness/app.js';
import { backdatedSubscription, foldUsage, invoicesOf, lineSummary, sendCalls } from './billing-support.js';

const harness = useHarness();
const run = async (h: Harness) => h.service.tasks['billing.run']!({ once: true });

describe('events before their customer', () => {
  it('keeps events for an unknown alias without backfilling, and bills them on the draft of the customer that takes the alias', async () => {
    const h = harness();
    h.clock.set('2026-03-31T12:00:00.000Z');
    const { customerId, subscriptionId } = await backdatedSubscription(h, { name: 'Renamed', startDate: '2026-03-01' });
    await run(h);
    const events = Array.from({ length: 120 }, (_, i) => ({ event_id: `pending-${i}`, code: 'api_call', customer_id: 'crm-pending', timestamp: '2026-03-31T10:00:00Z' }));
    const sent = await h.request('POST', '/api/v1/events/ingest', { body: { events } });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toMatchObject({ ingested: 120, unknown_customer_events: 120, warnings: [expect.stringContaining("120 events name a customer alias no customer has yet ('crm-pending')")] });

    h.clock.set('2026-04-01T06:00:00.000Z'); // April's draft bills March's usage: none of it is the customer's yet
    await run(h);
    let april = (await invoicesOf(h, subscriptionId))[1]!;
    expect(april).toMatchObject({ status: 'DRAFT', subtotal: '59.00' });

    const renamed = await h.request('PATCH', `/api/v1/customers/${customerId}`, { body: { alias: 'crm-pending' } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const listed = (await h.request('GET', '/api/v1/events/unresolved-customers?per_page=100')).json();
    expect(listed.data.map((r: { customer_ref: string }) => r.customer_ref)).not.toContain('crm-pending');

    h.clock.set('2026-04-02T00:00:00.000Z'); // the draft's last refresh, at its finalization, counts them
    await run(h);
    april = (await invoicesOf(h, subscriptionId))[1]!;
    expect(april).toMatchObject({ status: 'FINALIZED', subtotal: '70.00' });
    expect(lineSummary(april)[2]).toEqual(['API calls', '2026-03-01', '2026-03-31', '11.00', '2.20']); // 100 x 0.10 + 20 x 0.05
    h.clock.set('2026-03-15T12:00:00.000Z');
  });

  it('bills a migration the same total whether usage or subscriptions are loaded first', async () => {
    const h = harness();
    h.clock.set('2026-03-15T12:00:00.000Z');
    const history = async (alias: string) => ({
      january: await sendCalls(h, alias, '2026-01-20', 150, `${alias}-jan`), // 12.50
      february: await sendCalls(h, alias, '2026-02-10', 80, `${alias}-feb`), // 8.00
    });

    // A: usage first (kept under the alias), then the customer and its backdated subscription
    expect(await history('mig-a')).toEqual({
      january: { ingested: 150, in_finalized_periods: 0, unknown_customer_events: 150 },
      february: { ingested: 80, in_finalized_periods: 0, unknown_customer_events: 80 },
    });
    const a = await backdatedSubscription(h, { name: 'Usage first', alias: 'mig-a' });
    await run(h);

    // B: the customer and its subscription first (January to March invoiced without usage), then usage
    const b = await backdatedSubscription(h, { name: 'Subscriptions first', alias: 'mig-b' });
    await run(h);
    expect(await history('mig-b')).toEqual({
      january: { ingested: 150, in_finalized_periods: 150, unknown_customer_events: 0 },
      february: { ingested: 80, in_finalized_periods: 80, unknown_customer_events: 0 },
    });
    await foldUsage(h);

    h.clock.set('2026-04-02T00:00:00.000Z');
    await run(h);
    const [invoicesA, invoicesB] = [await invoicesOf(h, a.subscriptionId), await invoicesOf(h, b.subscriptionId)];
    expect(invoicesA.map((i) => [i.invoice_date, i.status, i.total])).toEqual([
      ['2026-01-01', 'FINALIZED', '70.80'],
      ['2026-02-01', 'FINALIZED', '85.80'], // + January's usage 12.50 and its tax
      ['2026-03-01', 'FINALIZED', '80.40'], // + February's 8.00
      ['2026-04-01', 'FINALIZED', '70.80'],
    ]);
    expect(invoicesB.map((i) => [i.invoice_date, i.status, i.total])).toEqual([
      ['2026-01-01', 'FINALIZED', '70.80'],
      ['2026-02-01', 'FINALIZED', '70.80'],
      ['2026-03-01', 'FINALIZED', '70.80'],
      ['2026-04-01', 'FINALIZED', '95.40'], // + January's and February's usage, late
    ]);
    expect(lineSummary(invoicesB[3]!).slice(3)).toEqual([
      ['API calls: late usage of 2026-01-01 to 2026-01-31', '2026-01-01', '2026-01-31', '12.50', '2.50'],
      ['API calls: late usage of 2026-02-01 to 2026-02-28', '2026-02-01', '2026-02-28', '8.00', '1.60'],
    ]);
    const sum = (invoices: Record<string, any>[]) => invoices.reduce((total, i) => total.plus(i.total), new Dec(0)).toFixed(2);
    expect(sum(invoicesA)).toBe('307.80');
    expect(sum(invoicesB)).toBe(sum(invoicesA));
    h.clock.set('2026-03-15T12:00:00.000Z');
  });
});
