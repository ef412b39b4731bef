// A credit balance that moves without usage: CREDIT_BALANCE alerts follow a consumption, a grant,
// a paid top-up becoming usable and an expiry, and the expiry sweep records expiries once
// (docs/credits-and-alerts.md, "When the balance moves" and "The expiry sweep").
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Dec } from '../../src/kernel/money.js';
import { EXPIRY_SWEEP_TASK } from '../../src/modules/credits/index.js';
import { useHarness, type Harness } from '../harness/app.js';
import { createCustomer, createDraft } from './invoices-support.js';
import { WebhookReceiver } from './webhooks-receiver.js';

const harness = useHarness();
const receiver = new WebhookReceiver();
let baseUrl = '';
const NOW = '2026-03-15T12:00:00.000Z';

beforeAll(async () => {
  baseUrl = await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});
afterEach(async () => {
  const h = harness();
  h.clock.set(NOW);
  // every endpoint of the tenant gets every alert event: leave none behind for the next test
  const list = await h.request('GET', '/api/v1/webhooks/endpoints?per_page=100');
  for (const endpoint of list.json().data) await h.request('DELETE', `/api/v1/webhooks/endpoints/${endpoint.id}`);
});

async function post(h: Harness, url: string, body: Record<string, unknown>, status = 201) {
  const res = await h.request('POST', url, { body });
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
}

/** A customer, a webhook endpoint for alert events at `path`, and a CREDIT_BALANCE alert (created after `before`). */
async function setup(path: string, thresholds: string[], before: (h: Harness, customerId: string) => Promise<unknown> = async () => undefined) {
  const h = harness();
  h.clock.set(NOW);
  const customer = await createCustomer(h);
  await before(h, customer.id);
  await post(h, '/api/v1/webhooks/endpoints', { url: `${baseUrl}${path}`, event_types: ['alert.triggered', 'alert.resolved'] });
  const alert = await post(h, '/api/v1/alerts', { name: 'Low credits', kind: 'CREDIT_BALANCE', customer_id: customer.id, thresholds });
  await settle(h);
  return { h, customer, alert };
}

/** Runs the jobs (the balance-moved job asks alerts to evaluate), waits for the evaluations, and delivers. */
async function settle(h: Harness) {
  await h.drainJobs();
  await h.service.alerts.idle();
  await h.drainJobs();
}

const types = (path: string) => receiver.at(path).map((r) => `${r.json.type} ${r.json.threshold} ${r.json.value}`);
const grant = (h: Harness, customerId: string, body: Record<string, unknown>) =>
  post(h, `/api/v1/customers/${customerId}/credit-grants`, { name: 'Credits', type: 'PROMOTIONAL', ...body });

/** A finalized invoice of `amount` without tax: the grants pay it at finalization. */
async function spend(h: Harness, customerId: string, amount: string) {
  const draft = await createDraft(h, customerId, { lines: [{ name: 'Setup', category: 'ONE_TIME', amount: new Dec(amount) }], tax: { treatment: 'NO_TAX', rate: new Dec(0), country: null } });
  const res = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** EXPIRY entries of a customer, read in SQL: the API's ledger read would record due expiries itself. */
const expiryRows = async (h: Harness, customerId: string) =>
  (await h.db.pool.query(`SELECT grant_id, amount_minor::text AS amount, effective_at FROM credit_ledger_entries WHERE customer_id = $1 AND entry_type = 'EXPIRY'`, [customerId])).rows;

describe('CREDIT_BALANCE alerts follow the balance', () => {
  it('a consumption at finalization triggers, a grant resolves: exactly two webhooks', async () => {
    const { h, customer, alert } = await setup('/consumed', ['10'], (h, id) => grant(h, id, { amount: '20.00' }));
    expect(types('/consumed')).toEqual([]);

    // 15.00 of the 20.00 paid by credits at finalization: 5.00 left, under 10
    expect(await spend(h, customer.id, '15')).toMatchObject({ prepaid_credits: '15.00' });
    await expect.poll(async () => (await settle(h), types('/consumed'))).toEqual(['alert.triggered 10 5']);
    expect(receiver.at('/consumed')[0]!.json).toMatchObject({ alert_id: alert.id, kind: 'CREDIT_BALANCE', customer_id: customer.id, period_start: null });

    // a grant of 10.00 lifts it to 15.00: resolved
    await grant(h, customer.id, { amount: '10.00' });
    await expect.poll(async () => (await settle(h), types('/consumed'))).toEqual(['alert.triggered 10 5', 'alert.resolved 10 15']);
    // nothing more moves it: still two
    await settle(h);
    expect(types('/consumed')).toHaveLength(2);
    const state = (await h.request('GET', `/api/v1/alerts/${alert.id}`)).json().state;
    expect(state).toEqual([expect.objectContaining({ threshold: '10', triggered: false, last_value: '15' })]);
  }, 90_000);

  it('a paid top-up resolves only once its invoice is paid, and a void triggers again', async () => {
    const { h, customer } = await setup('/top-up', ['10']);
    // no credits: 0 is under 10 at creation
    await expect.poll(async () => (await settle(h), types('/top-up'))).toEqual(['alert.triggered 10 0']);

    const bought = await grant(h, customer.id, { name: 'Pack', type: 'PAID', amount: '50.00' });
    await settle(h);
    expect(types('/top-up')).toEqual(['alert.triggered 10 0']);

    const paid = await h.request('POST', `/api/v1/invoices/${bought.invoice_id}/mark-paid`, { body: {} });
    expect(paid.statusCode, paid.body).toBe(200);
    await expect.poll(async () => (await settle(h), types('/top-up'))).toEqual(['alert.triggered 10 0', 'alert.resolved 10 50']);

    const voided = await h.request('POST', `/api/v1/customers/${customer.id}/credit-grants/${bought.id}/void`);
    expect(voided.statusCode, voided.body).toBe(200);
    await expect.poll(async () => (await settle(h), types('/top-up'))).toEqual(['alert.triggered 10 0', 'alert.resolved 10 50', 'alert.triggered 10 0']);
  }, 90_000);
});

describe('expiry sweep', () => {
  it('records one EXPIRY entry per expired grant however often it runs, and the alert follows', async () => {
    const { h, customer } = await setup('/expired', ['5'], async (h, id) => {
      await grant(h, id, { name: 'Short', amount: '8.00', expires_at: '2026-03-20T00:00:00Z' });
      await grant(h, id, { name: 'Spent', amount: '3.00', priority: 1, expires_at: '2026-03-20T00:00:00Z' });
      await grant(h, id, { name: 'Long', amount: '2.00', expires_at: '2026-06-01T00:00:00Z' });
    });
    // the 3.00 grant is used up before it expires: nothing of it is left to expire
    await spend(h, customer.id, '3');
    await settle(h);
    expect(types('/expired')).toEqual([]);
    const sweep = h.service.tasks[EXPIRY_SWEEP_TASK]!;

    // before the expiry the sweep finds nothing
    h.clock.set('2026-03-19T23:59:59.999Z');
    await sweep({ once: true });
    expect(await expiryRows(h, customer.id)).toEqual([]);

    h.clock.set('2026-03-20T00:00:30.000Z');
    await Promise.all([sweep({ once: true }), sweep({ once: true })]);
    await sweep({ once: true, since: '2026-03-19T23:59:00.000Z' });
    const rows = await expiryRows(h, customer.id);
    expect(rows).toEqual([expect.objectContaining({ amount: '-800', effective_at: new Date('2026-03-20T00:00:00.000Z') })]);
    const short = (await h.request('GET', `/api/v1/customers/${customer.id}/credit-grants`, { query: { per_page: '100' } })).json().data.find((g: { name: string }) => g.name === 'Short');
    expect(rows[0]!.grant_id).toBe(short.id);

    // the balance fell from 10.00 to 2.00 without usage: the alert triggers, once
    await expect.poll(async () => (await settle(h), types('/expired'))).toEqual(['alert.triggered 5 2']);
    expect((await h.request('GET', `/api/v1/customers/${customer.id}/credit-balance`)).json()).toMatchObject({ balance: '2.00' });
    expect(await expiryRows(h, customer.id)).toHaveLength(1);
  }, 90_000);

  it('leaves a customer on a test clock to its clock, and reads only its window after the first run', async () => {
    const h = harness();
    h.clock.set(NOW);
    const clock = await post(h, '/api/v1/test-clocks', { frozen_time: '2026-01-01T00:00:00Z', name: 'expiry sweep' });
    const onClock = await createCustomer(h, { test_clock_id: clock.id });
    await grant(h, onClock.id, { amount: '5.00', expires_at: '2026-02-01T00:00:00Z' });
    const customer = await createCustomer(h);
    await grant(h, customer.id, { amount: '4.00', expires_at: '2026-03-16T00:00:00Z' });
    h.clock.set('2026-03-16T00:00:00.000Z');
    const sweep = h.service.tasks[EXPIRY_SWEEP_TASK]!;
    // a window that ended before the expiry (a later sweep's `since`, less its overlap, is after it) reads nothing
    await sweep({ once: true, since: '2026-03-16T00:20:00.000Z' });
    expect(await expiryRows(h, customer.id)).toEqual([]);
    await sweep({ once: true, since: '2026-03-16T00:05:00.000Z' });
    expect(await expiryRows(h, customer.id)).toHaveLength(1);
    // the service clock is past the clock customer's expiry, its clock is not: nothing recorded for it
    await sweep({ once: true });
    expect(await expiryRows(h, onClock.id)).toEqual([]);
    expect((await h.request('GET', `/api/v1/customers/${onClock.id}/credit-balance`)).json()).toMatchObject({ balance: '5.00', as_of: '2026-01-01T00:00:00.000Z' });
  }, 90_000);
});
