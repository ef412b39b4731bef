// A subscription's `next_invoice_date` is the date the billing run invoices it next: for each
// subscription of the table, the run on that date issues exactly one new invoice, dated that day
// (so none came before it), and a subscription answering null gets no invoice in the next year.
import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/dates.js';
import type { Harness } from '../harness/app.js';
import { useHarness } from '../harness/app.js';
import { seedCustomer, seedPlan, type SeededPlan } from '../http/subscription-fixtures.js';
import { backdatedSubscription, invoicesOf } from './billing-support.js';

const harness = useHarness();
const run = async (h: Harness) => h.service.tasks['billing.run']!({ once: true });

interface Row {
  /** The day the subscription is created and read. */
  today: string;
  plan?: Parameters<typeof seedPlan>[3];
  body: (plan: SeededPlan) => Record<string, unknown>;
  /** The cancellation request sent after creation, if any. */
  cancel?: Record<string, unknown>;
  /** A subscription with usage in arrears (billing-support's plan) instead of the seeded plan. */
  withUsage?: boolean;
  expected: string | null;
}

const monthly = (plan: SeededPlan) => ({ parameterized_components: [{ component_id: plan.rateComponentId, parameters: { billing_period: 'MONTHLY' } }] });
const annual = (plan: SeededPlan, removeSeats = false) => ({
  parameterized_components: [{ component_id: plan.rateComponentId, parameters: { billing_period: 'ANNUAL' } }],
  ...(removeSeats ? { remove_components: [plan.slotComponentId] } : {}),
});

// Rows answering null come first, while few other subscriptions run up invoices in their year.
const rows: [string, Row][] = [
  ['cancelled at the period end, advance fees only: nothing left to invoice', {
    today: '2026-03-15', plan: { annual: true }, body: (p) => ({ start_date: '2026-03-01', billing_day_anchor: 1, price_components: monthly(p) }), cancel: {}, expected: null,
  }],
  ['ended before today', {
    today: '2026-03-15', plan: { annual: true }, body: (p) => ({ start_date: '2025-12-01', end_date: '2026-02-01', billing_day_anchor: 1, price_components: monthly(p) }), expected: null,
  }],
  ['off the anchor: the stub period ends on it', {
    today: '2026-03-15', plan: { annual: true }, body: (p) => ({ start_date: '2026-03-10', billing_day_anchor: 1, price_components: monthly(p) }), expected: '2026-04-01',
  }],
  ['anchor 31 in April: the 30th', {
    today: '2026-04-15', plan: { annual: true }, body: (p) => ({ start_date: '2026-03-31', billing_day_anchor: 31, price_components: monthly(p) }), expected: '2026-04-30',
  }],
  ['pending: the start date', {
    today: '2026-03-15', plan: { annual: true }, body: (p) => ({ start_date: '2026-05-05', price_components: monthly(p) }), expected: '2026-05-05',
  }],
  ['free trial: its end', {
    today: '2026-03-15', plan: { trialDays: 14, trialIsFree: true }, body: () => ({ start_date: '2026-03-10' }), expected: '2026-03-24',
  }],
  ['paid trial: billed from the start like no trial', {
    today: '2026-03-15', plan: { trialDays: 14, trialIsFree: false }, body: () => ({ start_date: '2026-03-10' }), expected: '2026-04-10',
  }],
  ['mixed terms (annual platform, monthly seats): the monthly boundary', {
    today: '2026-03-15', plan: { annual: true }, body: (p) => ({ start_date: '2026-03-01', billing_day_anchor: 1, price_components: annual(p) }), expected: '2026-04-01',
  }],
  ['annual platform only: its renewal', {
    today: '2026-03-15', plan: { annual: true }, body: (p) => ({ start_date: '2026-03-01', billing_day_anchor: 1, price_components: annual(p, true) }), expected: '2027-03-01',
  }],
  ['cancelled at a date inside the period: the final invoice crediting the rest', {
    today: '2026-03-15', plan: { annual: true }, body: (p) => ({ start_date: '2026-03-01', billing_day_anchor: 1, price_components: monthly(p) }), cancel: { effective_date: '2026-03-20' }, expected: '2026-03-20',
  }],
  ['cancelled at the period end, usage in arrears: the final invoice', { today: '2026-03-15', withUsage: true, body: () => ({}), cancel: {}, expected: '2026-04-01' }],
];

describe('next_invoice_date is the next invoice the billing run issues', () => {
  it.each(rows)('%s', async (_name, row) => {
    const h = harness();
    h.clock.set(`${row.today}T12:00:00.000Z`);
    let subscriptionId: string;
    if (row.withUsage) {
      subscriptionId = (await backdatedSubscription(h, { startDate: '2026-03-01' })).subscriptionId;
    } else {
      const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey, row.plan);
      const customer = await seedCustomer(h, h.tenant.apiKey);
      const created = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, ...row.body(plan) } });
      expect(created.statusCode, created.body).toBe(201);
      subscriptionId = created.json().id;
    }
    if (row.cancel) {
      const cancelled = await h.request('POST', `/api/v1/subscriptions/${subscriptionId}/cancel`, { body: row.cancel });
      expect(cancelled.statusCode, cancelled.body).toBe(200);
    }
    await run(h); // everything due today is invoiced
    const before = (await invoicesOf(h, subscriptionId)).map((invoice) => invoice.invoice_date as string);
    const shown = (await h.request('GET', `/api/v1/subscriptions/${subscriptionId}`)).json().next_invoice_date;
    expect(shown).toBe(row.expected);

    h.clock.set(`${row.expected ?? addDays(row.today, 400)}T12:00:00.000Z`);
    await run(h);
    const after = (await invoicesOf(h, subscriptionId)).map((invoice) => invoice.invoice_date as string);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length)).toEqual(row.expected === null ? [] : [row.expected]);
  });
});
