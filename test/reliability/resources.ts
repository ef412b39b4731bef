// Resources of one tenant, created through the API, that the reliability tests address by id: the
// fuzzer puts them in path parameters so that malformed queries and bodies reach the handlers behind
// the lookup, and the isolation probe calls every operation with another tenant's ids.
import type { Harness } from '../harness/app.js';
import { createDraft } from '../http/invoices-support.js';

/** Path parameter name (as the OpenAPI document spells it) → an id of the tenant. */
export type PathIds = Record<string, string>;

/** GET URLs whose answers show the tenant's resources, compared before and after the probe. */
export const SNAPSHOT_URLS = [
  '/api/v1/customers?per_page=100',
  '/api/v1/product_families?per_page=100',
  '/api/v1/products?per_page=100',
  '/api/v1/metrics?per_page=100',
  '/api/v1/features?per_page=100',
  '/api/v1/plans?per_page=100',
  '/api/v1/addons?per_page=100',
  '/api/v1/coupons?per_page=100',
  '/api/v1/subscriptions?per_page=100',
  '/api/v1/invoices?per_page=100',
  '/api/v1/credit-notes?per_page=100',
  '/api/v1/invoicing-entities?per_page=100',
  '/api/v1/webhooks/endpoints?per_page=100',
  '/api/v1/oauth/apps?per_page=100',
  '/api/v1/test-clocks?per_page=100',
  '/api/v1/connected-accounts?per_page=100',
  '/api/v1/checkout-sessions?per_page=100',
  '/api/v1/api-keys',
];

/**
 * Creates one of each resource in the tenant of `key`; throws naming the first creation that fails.
 * `tenantId` is needed for the invoice, created through the invoices module as the invoice tests do.
 */
export async function createResources(h: Harness, key: string, tenantId: string): Promise<PathIds> {
  const post = async (url: string, body: unknown): Promise<Record<string, unknown> & { id: string }> => {
    const res = await h.request('POST', url, { key, body });
    if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`fixture POST ${url} answered ${res.statusCode}: ${res.body}`);
    return res.json();
  };
  const family = await post('/api/v1/product_families', { name: 'Reliability', alias: `rel-${tenantId.slice(-8).toLowerCase()}` });
  const product = await post('/api/v1/products', { name: 'Platform', product_family_id: family.id, fee_structure: { type: 'RATE' } });
  const metric = await post('/api/v1/metrics', { name: 'Calls', code: 'rel_calls', aggregation_type: 'COUNT', product_family_id: family.id });
  const feature = await post('/api/v1/features', { code: 'rel_sso', name: 'SSO', feature_type: { type: 'BOOLEAN' }, entitlement: { value: { enabled: false } } });
  const plan = await post('/api/v1/plans', {
    name: 'Pro',
    currency: 'EUR',
    product_family_id: family.id,
    status: 'ACTIVE',
    components: [{ name: 'Platform', product_id: product.id, fee: { rates: [{ term: 'MONTHLY', price: '49.00' }] } }],
  });
  const addOn = await post('/api/v1/addons', { name: 'Support', product_id: product.id, price: { term: 'MONTHLY', price: '9.00' } }).catch(() => undefined);
  const coupon = await post('/api/v1/coupons', { code: `REL${tenantId.slice(-6)}`, discount: { type: 'PERCENTAGE', percentage: '10' } }).catch(() => undefined);
  const customer = await post('/api/v1/customers', { name: 'ACME', currency: 'EUR', alias: `acme-${tenantId.slice(-8).toLowerCase()}` });
  const subscription = await post('/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.id, start_date: '2026-03-01' });
  const invoice = (await createDraft(h, customer.id, { tenantId })).invoice;
  const creditNoteInvoice = (await createDraft(h, customer.id, { tenantId })).invoice;
  await h.request('POST', `/api/v1/invoices/${creditNoteInvoice.id}/finalize`, { key });
  const creditNote = await post('/api/v1/credit-notes', { invoice_id: creditNoteInvoice.id, reason: 'Outage', credit_type: 'CREDIT_TO_BALANCE' }).catch(() => undefined);
  const entity = await post('/api/v1/invoicing-entities', { name: 'Second entity', country: 'FR', invoice_number_prefix: 'REL' }).catch(() => undefined);
  const endpoint = await post('/api/v1/webhooks/endpoints', { url: 'http://127.0.0.1:9/hook' }).catch(() => undefined);
  const app = await post('/api/v1/oauth/apps', { name: 'Rel app', redirect_uris: ['https://rel.example/cb'] }).catch(() => undefined);
  const clock = await post('/api/v1/test-clocks', { frozen_time: '2026-01-01T00:00:00Z', name: 'rel' }).catch(() => undefined);
  const account = await post('/api/v1/connected-accounts', { email: 'owner@shop.example', organization_name: 'Shop Ltd', country: 'FR', return_url: 'https://platform.example.com/done' }).catch(() => undefined);
  const apiKey = await post('/api/v1/api-keys', { name: 'rel' }).catch(() => undefined);

  const ids: PathIds = {
    id_or_alias: customer.id,
    'product_families:id_or_alias': family.id,
    customer_id: customer.id,
    product_id: product.id,
    metric_id: metric.id,
    id_or_code: feature.id,
    feature_id: feature.id,
    plan_id: plan.id,
    plan_version_id: String(plan.version_id),
    subscription_id: subscription.id,
    invoice_id: invoice.id,
  };
  const optional: [string, { id: string } | undefined][] = [
    ['addon_id', addOn],
    ['coupon_id', coupon],
    ['credit_note_id', creditNote],
    ['invoicing_entity_id', entity],
    ['endpoint_id', endpoint],
    ['app_id', app],
    ['test_clock_id', clock],
    ['connected_account_id', account],
    ['api_key_id', apiKey],
  ];
  for (const [name, value] of optional) if (value) ids[name] = value.id;
  return ids;
}

/** The tenant's id for a path parameter of `path`, or undefined when no fixture has one. */
export function idFor(ids: PathIds, path: string, name: string): string | undefined {
  if (path.startsWith('/api/v1/product_families/')) return ids[`product_families:${name}`];
  return ids[name];
}
