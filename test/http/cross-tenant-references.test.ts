import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { createDraft } from './invoices-support.js';
import { seedCustomer, seedPlan, type SeededPlan } from './subscription-fixtures.js';

// Every id in a request body must name an object of the caller's tenant: another tenant's id is
// refused with a 400 naming the field, exactly like an id that does not exist, and nothing is stored.
const harness = useHarness();

interface Foreign {
  entityId: string;
  connectedAccountId: string;
  plan: SeededPlan;
  familyId: string;
  productId: string;
  customerId: string;
  invoiceId: string;
}

async function createExpressAccount(h: Harness, key: string): Promise<string> {
  const res = await h.request('POST', '/api/v1/connected-accounts', {
    key,
    body: { email: 'owner@shop.example', organization_name: 'Shop Ltd', country: 'FR', return_url: 'https://platform.example.com/express/done' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

let foreign: Foreign;

beforeAll(async () => {
  const h = harness();
  const key = h.other.apiKey;
  const entities = (await h.request('GET', '/api/v1/invoicing-entities', { key })).json();
  const plan = await seedPlan(h, h.other.id, key);
  const family = (await h.request('POST', '/api/v1/product_families', { key, body: { name: 'Theirs' } })).json();
  const product = (await h.request('POST', '/api/v1/products', { key, body: { name: 'Theirs', product_family_id: family.id, fee_structure: { type: 'RATE' } } })).json();
  const customer = await seedCustomer(h, key);
  const invoice = await createDraft(h, customer.id, { tenantId: h.other.id });
  foreign = {
    entityId: (entities.data ?? entities)[0].id,
    connectedAccountId: await createExpressAccount(h, key),
    plan,
    familyId: family.id,
    productId: product.id,
    customerId: customer.id,
    invoiceId: invoice.invoice.id,
  };
});

async function customerCount(h: Harness): Promise<number> {
  const { rows } = await h.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM customers WHERE tenant_id = $1', [h.tenant.id]);
  return Number(rows[0]!.n);
}

function expectRefused(res: { statusCode: number; json(): { message: string } }, field: string) {
  expect(res.statusCode).toBe(400);
  expect(res.json().message).toContain(field);
}

describe('customers', () => {
  it('refuses another tenant\'s connected_account_id on create, and stores nothing', async () => {
    const h = harness();
    const before = await customerCount(h);
    const res = await h.request('POST', '/api/v1/customers', { body: { name: 'Mine', currency: 'EUR', connected_account_id: foreign.connectedAccountId } });
    expectRefused(res, 'is not a connected account of this tenant');
    expectRefused(await h.request('POST', '/api/v1/customers', { body: { name: 'Mine', currency: 'EUR', connected_account_id: 'cacc_UNKNOWN' } }), 'connected_account_id \'cacc_UNKNOWN\' is not');
    expect(await customerCount(h)).toBe(before);
    // an account of the tenant itself is taken
    const own = await createExpressAccount(h, h.tenant.apiKey);
    const created = await h.request('POST', '/api/v1/customers', { body: { name: 'Mine', currency: 'EUR', connected_account_id: own } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().connected_account_id).toBe(own);
  });

  it('refuses another tenant\'s invoicing_entity_id on create, PUT and PATCH', async () => {
    const h = harness();
    expectRefused(await h.request('POST', '/api/v1/customers', { body: { name: 'Mine', currency: 'EUR', invoicing_entity_id: foreign.entityId } }), 'invoicing_entity_id');
    const mine = await seedCustomer(h, h.tenant.apiKey);
    expectRefused(await h.request('PUT', `/api/v1/customers/${mine.id}`, { body: { name: 'Mine', currency: 'EUR', invoicing_emails: [], custom_taxes: [], invoicing_entity_id: foreign.entityId } }), 'invoicing_entity_id');
    expectRefused(await h.request('PATCH', `/api/v1/customers/${mine.id}`, { body: { invoicing_entity_id: foreign.entityId } }), 'invoicing_entity_id');
    const after = (await h.request('GET', `/api/v1/customers/${mine.id}`)).json();
    expect(after.invoicing_entity_id).not.toBe(foreign.entityId);
  });
});

describe('the other create bodies holding ids', () => {
  it('catalog: products, plans (family, products, trialing plan) and coupons (plan_ids)', async () => {
    const h = harness();
    expectRefused(await h.request('POST', '/api/v1/products', { body: { name: 'P', product_family_id: foreign.familyId, fee_structure: { type: 'RATE' } } }), 'product_family_id');
    const family = (await h.request('POST', '/api/v1/product_families', { body: { name: 'Mine' } })).json();
    const plan = (components: unknown[], extra: Record<string, unknown> = {}) =>
      h.request('POST', '/api/v1/plans', { body: { name: 'P', currency: 'EUR', product_family_id: family.id, components, ...extra } });
    expectRefused(await h.request('POST', '/api/v1/plans', { body: { name: 'P', currency: 'EUR', product_family_id: foreign.familyId, components: [] } }), 'product_family_id');
    expectRefused(await plan([{ name: 'C', product_id: foreign.productId, fee: { rates: [{ price: '1.00' }] } }]), 'product_id');
    expectRefused(await plan([], { trial: { duration_days: 7, is_free: true, trialing_plan_id: foreign.plan.planId } }), 'trialing_plan_id');
    expectRefused(
      await h.request('POST', '/api/v1/coupons', { body: { code: 'X10', description: 'x', discount: { type: 'PERCENTAGE', percentage: '10' }, plan_ids: [foreign.plan.planId] } }),
      'plan_ids[0]',
    );
  });

  it('subscriptions (customer, plan) and credit notes (invoice)', async () => {
    const h = harness();
    const mine = await seedCustomer(h, h.tenant.apiKey);
    const myPlan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    const foreignCustomer = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: foreign.customerId, plan_id: myPlan.planId, start_date: '2026-03-01' } });
    expect(foreignCustomer.statusCode).toBe(400);
    expect(foreignCustomer.json().message).toContain('customer');
    const foreignPlan = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: mine.id, plan_id: foreign.plan.planId, start_date: '2026-03-01' } });
    expect(foreignPlan.statusCode).toBe(400);
    expect(foreignPlan.json().message).toContain('plan');
    const byVersion = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: mine.id, plan_version_id: foreign.plan.versionId, start_date: '2026-03-01' } });
    expect(byVersion.statusCode).toBe(400);
    expectRefused(await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: foreign.invoiceId, reason: 'x', credit_type: 'CREDIT_TO_BALANCE' } }), 'is not an invoice of this tenant');
  });
});
