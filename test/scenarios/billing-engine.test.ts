// Scenarios of the billing engine through HTTP. The plan (billing-support.ts): Platform 49.00 and
// 1 seat at 10.00 per month in advance, API calls in arrears (0.10 up to 100, then 0.05), French
// customer of a French entity: 20 % VAT, taxed per line and rounded half away from zero; net
// terms 15 days; drafts finalize 24 h after their invoice date. Expected values derived by hand.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { seedPlan } from '../http/subscription-fixtures.js';
import { backdatedSubscription, invoicesOf, lineSummary, sendCalls } from './billing-support.js';

const harness = useHarness();
const run = async (h: ReturnType<typeof harness>) => h.service.tasks['billing.run']!({ once: true });
const totals = (invoices: Record<string, any>[]) => invoices.map((i) => [i.invoice_type, i.invoice_date, i.period_start, i.period_end, i.subtotal, i.discount, i.tax_amount, i.total]);

describe('billing engine scenarios', () => {
  it('backdated with skip_past_invoices=false: one invoice per past period, the first prorated; with true: nothing before the import day', async () => {
    const h = harness();
    h.clock.set('2026-02-10T12:00:00.000Z');
    const { customerId, subscriptionId } = await backdatedSubscription(h, { name: 'Backdated', startDate: '2025-11-20' });
    await sendCalls(h, customerId, '2025-12-10', 30, 'dec'); // 30 x 0.10 = 3.00, billed on 2026-01-01
    const imported = await backdatedSubscription(h, { name: 'Imported', startDate: '2025-11-20', skipPastInvoices: true });
    await run(h);

    const invoices = await invoicesOf(h, subscriptionId);
    expect(totals(invoices)).toEqual([
      // stub [11-20, 12-01): 11 of November's 30 days. 49 x 11/30 = 17.966.. -> 17.97; 10 x 11/30 = 3.666.. -> 3.67
      // tax 3.594 -> 3.59 and 0.734 -> 0.73
      ['RECURRING', '2025-11-20', '2025-11-20', '2025-12-01', '21.64', '0.00', '4.32', '25.96'],
      // 49 + 10 in advance; no usage in the stub: a zero usage line
      ['RECURRING', '2025-12-01', '2025-12-01', '2026-01-01', '59.00', '0.00', '11.80', '70.80'],
      // + December's 30 calls: 3.00, tax 0.60
      ['RECURRING', '2026-01-01', '2026-01-01', '2026-02-01', '62.00', '0.00', '12.40', '74.40'],
      ['RECURRING', '2026-02-01', '2026-02-01', '2026-03-01', '59.00', '0.00', '11.80', '70.80'],
    ]);
    expect(lineSummary(invoices[0]!)).toEqual([
      ['Platform', '2025-11-20', '2025-11-30', '17.97', '3.59'],
      ['Seats (seat)', '2025-11-20', '2025-11-30', '3.67', '0.73'],
    ]);
    expect(invoices[0]!.line_items[0].description).toBe('Prorated: 11 of 30 days');
    expect(lineSummary(invoices[1]!)[2]).toEqual(['API calls', '2025-11-20', '2025-11-30', '0.00', '0.00']);
    expect(lineSummary(invoices[2]!)[2]).toEqual(['API calls', '2025-12-01', '2025-12-31', '3.00', '0.60']);
    // all past their grace period: finalized by the same run, numbered in date order, due = date + 15
    expect(invoices.map((i) => [i.status, i.due_date])).toEqual([
      ['FINALIZED', '2025-12-05'], ['FINALIZED', '2025-12-16'], ['FINALIZED', '2026-01-16'], ['FINALIZED', '2026-02-16'],
    ]);
    const numbers = invoices.map((i) => Number(String(i.invoice_number).slice(4)));
    expect(numbers).toEqual([numbers[0], numbers[0]! + 1, numbers[0]! + 2, numbers[0]! + 3]);

    // imported on 2026-02-10: the old system billed until then, February's advance included
    expect(await invoicesOf(h, imported.subscriptionId)).toEqual([]);
    h.clock.set('2026-03-02T12:00:00.000Z');
    await sendCalls(h, imported.customerId, '2026-02-15', 5, 'imp'); // 0.50, tax 0.10
    await run(h);
    expect(totals(await invoicesOf(h, imported.subscriptionId))).toEqual([['RECURRING', '2026-03-01', '2026-03-01', '2026-04-01', '59.50', '0.00', '11.90', '71.40']]);
    h.clock.set('2026-03-15T12:00:00.000Z');
  });

  it('a mid-period slot upgrade gives an adjustment invoice with the prorated credit and charge', async () => {
    const h = harness();
    h.clock.set('2026-01-01T09:00:00.000Z');
    const { subscriptionId, plan } = await backdatedSubscription(h, { name: 'Upgrader' });
    await run(h);
    h.clock.set('2026-01-11T09:00:00.000Z');
    const change = await h.request('POST', `/api/v1/subscriptions/${subscriptionId}/slots`, { body: { price_component_id: plan.slotComponentId, slots: 3 } });
    expect(change.statusCode, change.body).toBe(200);
    await run(h);
    h.clock.set('2026-02-01T09:00:00.000Z');
    await run(h);

    const invoices = await invoicesOf(h, subscriptionId);
    expect(totals(invoices)).toEqual([
      ['RECURRING', '2026-01-01', '2026-01-01', '2026-02-01', '59.00', '0.00', '11.80', '70.80'],
      // [01-11, 02-01) = 21 of 31 days: 1 seat credited -10 x 21/31 = -6.774.. -> -6.77 (tax -1.354.. -> -1.35),
      // 3 seats charged 30 x 21/31 = 20.322.. -> 20.32 (tax 4.064 -> 4.06): a net charge, invoiced at once
      ['ADJUSTMENT', '2026-01-11', '2026-01-11', '2026-02-01', '13.55', '0.00', '2.71', '16.26'],
      // 49 + 3 seats x 10 = 79.00; no January usage
      ['RECURRING', '2026-02-01', '2026-02-01', '2026-03-01', '79.00', '0.00', '15.80', '94.80'],
    ]);
    expect(lineSummary(invoices[1]!)).toEqual([
      ['Unused time: Seats (seat) (2026-01-11 to 2026-02-01)', '2026-01-11', '2026-01-31', '-6.77', '-1.35'],
      ['Remaining time: Seats (seat) (2026-01-11 to 2026-02-01)', '2026-01-11', '2026-01-31', '20.32', '4.06'],
    ]);
    expect(invoices[1]!.line_items.map((l: Record<string, string>) => l.quantity)).toEqual(['1', '3']);
    expect(lineSummary(invoices[2]!).slice(0, 2)).toEqual([
      ['Platform', '2026-02-01', '2026-02-28', '49.00', '9.80'],
      ['Seats (seat)', '2026-02-01', '2026-02-28', '30.00', '6.00'],
    ]);
    h.clock.set('2026-03-15T12:00:00.000Z');
  });

  it('an immediate cancellation gives a final invoice: usage so far, credit of the unused advance, carried to the balance', async () => {
    const h = harness();
    h.clock.set('2026-01-01T09:00:00.000Z');
    const { customerId, subscriptionId } = await backdatedSubscription(h, { name: 'Leaver' });
    await run(h);
    h.clock.set('2026-01-21T09:00:00.000Z');
    await sendCalls(h, customerId, '2026-01-05', 10, 'leave'); // 1.00
    const cancel = await h.request('POST', `/api/v1/subscriptions/${subscriptionId}/cancel`, { body: { effective_date: '2026-01-21' } });
    expect(cancel.statusCode, cancel.body).toBe(200);
    await run(h);
    h.clock.set('2026-01-22T09:00:00.000Z'); // past the final invoice's grace period
    await run(h);

    const invoices = await invoicesOf(h, subscriptionId);
    expect(totals(invoices)).toEqual([
      ['RECURRING', '2026-01-01', '2026-01-01', '2026-02-01', '59.00', '0.00', '11.80', '70.80'],
      // unused [01-21, 02-01) = 11 of 31 days: -49 x 11/31 = -17.387.. -> -17.39 (tax -3.477.. -> -3.48),
      // -10 x 11/31 = -3.548.. -> -3.55 (tax -0.71); usage [01-01, 01-21): 1.00 (tax 0.20)
      // subtotal 1.00 - 17.39 - 3.55 = -19.94; tax 0.20 - 3.48 - 0.71 = -3.99; total -23.93
      ['RECURRING', '2026-01-21', '2026-01-21', '2026-01-21', '-19.94', '0.00', '-3.99', '-23.93'],
    ]);
    expect(lineSummary(invoices[1]!)).toEqual([
      ['API calls', '2026-01-01', '2026-01-20', '1.00', '0.20'],
      ['Unused time: Platform (2026-01-21 to 2026-02-01)', '2026-01-21', '2026-01-31', '-17.39', '-3.48'],
      ['Unused time: Seats (seat) (2026-01-21 to 2026-02-01)', '2026-01-21', '2026-01-31', '-3.55', '-0.71'],
    ]);
    expect(invoices[1]).toMatchObject({ status: 'FINALIZED', payment_status: 'PAID', amount_due: '0.00' });
    const customer = (await h.request('GET', `/api/v1/customers/${customerId}`)).json();
    expect(customer.balance).toBe('23.93');
    // nothing more after the stop
    h.clock.set('2026-03-02T09:00:00.000Z');
    await run(h);
    expect(await invoicesOf(h, subscriptionId)).toHaveLength(2);
    h.clock.set('2026-03-15T12:00:00.000Z');
  });

  it('an annual platform next to monthly seats, from Jan 10 with anchor 1: the first year runs to Jan 1 and is not charged again on Feb 1', async () => {
    const h = harness();
    h.clock.set('2026-02-01T09:00:00.000Z');
    const entity = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
    await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { country: 'FR', legal_name: 'Seller SAS' } });
    const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey, { annual: true });
    const customer = await h.request('POST', '/api/v1/customers', { body: { name: 'Yearly SARL', currency: 'EUR', billing_address: { line1: '2 rue X', city: 'Lyon', zip_code: '69001', country: 'FR' } } });
    const sub = await h.request('POST', '/api/v1/subscriptions', {
      body: {
        customer_id_or_alias: customer.json().id, plan_version_id: plan.versionId, start_date: '2026-01-10', billing_day_anchor: 1,
        price_components: { parameterized_components: [{ component_id: plan.rateComponentId, parameters: { billing_period: 'ANNUAL' } }] },
      },
    });
    expect(sub.statusCode, sub.body).toBe(201);
    await run(h);

    const invoices = await invoicesOf(h, sub.json().id);
    expect(totals(invoices)).toEqual([
      // Platform [01-10, 2027-01-01): 356 of 365 days, 490 x 356/365 = 477.917.. -> 477.92 (tax 95.584 -> 95.58);
      // seats [01-10, 02-01): 22 of 31 days, 10 x 22/31 = 7.096.. -> 7.10 (tax 1.42)
      ['RECURRING', '2026-01-10', '2026-01-10', '2026-02-01', '485.02', '0.00', '97.00', '582.02'],
      // seats only: the year is paid until 2027-01-01
      ['RECURRING', '2026-02-01', '2026-02-01', '2026-03-01', '10.00', '0.00', '2.00', '12.00'],
    ]);
    expect(lineSummary(invoices[0]!)).toEqual([
      ['Platform', '2026-01-10', '2026-12-31', '477.92', '95.58'],
      ['Seats (seat)', '2026-01-10', '2026-01-31', '7.10', '1.42'],
    ]);
    expect(invoices[0]!.line_items[0].description).toBe('Prorated: 356 of 365 days');
    h.clock.set('2026-03-15T12:00:00.000Z');
  });

  it('a coupon limited to 2 invoices discounts the first two of a catch-up run only', async () => {
    const h = harness();
    h.clock.set('2026-03-15T12:00:00.000Z');
    const coupon = await h.request('POST', '/api/v1/coupons', { body: { code: 'TWICE', discount: { type: 'PERCENTAGE', percentage: '10' }, recurring_value: 2 } });
    expect(coupon.statusCode, coupon.body).toBe(201);
    const { subscriptionId } = await backdatedSubscription(h, { name: 'Saver', couponCodes: ['TWICE'] });
    await run(h); // creates January, February and March at once, then finalizes them

    const invoices = await invoicesOf(h, subscriptionId);
    expect(totals(invoices)).toEqual([
      // 10 % of 59.00 = 5.90, spread over the lines: 4.90 + 1.00; tax (44.10 + 9.00) x 20 % = 8.82 + 1.80
      ['RECURRING', '2026-01-01', '2026-01-01', '2026-02-01', '59.00', '5.90', '10.62', '63.72'],
      ['RECURRING', '2026-02-01', '2026-02-01', '2026-03-01', '59.00', '5.90', '10.62', '63.72'],
      // used up: full price
      ['RECURRING', '2026-03-01', '2026-03-01', '2026-04-01', '59.00', '0.00', '11.80', '70.80'],
    ]);
    expect(invoices.map((i) => i.coupons)).toEqual([
      [{ coupon_id: coupon.json().id, name: 'Coupon (TWICE)', total: '5.90' }],
      [{ coupon_id: coupon.json().id, name: 'Coupon (TWICE)', total: '5.90' }],
      [],
    ]);
    expect(invoices.map((i) => i.status)).toEqual(['FINALIZED', 'FINALIZED', 'FINALIZED']);
    const upcoming = (await h.request('GET', `/api/v1/subscriptions/${subscriptionId}/upcoming-invoice`)).json();
    expect(upcoming).toMatchObject({ invoice_date: '2026-04-01', discount: '0.00', total: '70.80' });
  });
});
