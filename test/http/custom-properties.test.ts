import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { pdfText } from '../harness/pdf.js';
import { createDraft, outbox } from './invoices-support.js';
import { seedPlan } from './subscription-fixtures.js';
import { backdatedSubscription } from '../scenarios/billing-support.js';
import { WebhookReceiver } from './webhooks-receiver.js';

const harness = useHarness();
const receiver = new WebhookReceiver();
let baseUrl = '';

beforeAll(async () => {
  baseUrl = await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

let tenants = 0;

/**
 * A harness whose default caller is a tenant of its own: the file's database is shared by its
 * tests, and definitions or list filters of one test would otherwise meet another's objects.
 */
async function isolated(base: Harness): Promise<Harness> {
  tenants += 1;
  const account = await base.service.accounts.bootstrap({ email: `cprop${tenants}@a.test`, password: 'password-a', organization: `Org ${tenants}` });
  const sandbox = account.tenants.find((t) => t.environment === 'sandbox')!;
  const tenant = { id: sandbox.id, apiKey: sandbox.api_key, organizationId: account.organization.id };
  return { ...base, tenant, request: (method, url, options = {}) => base.request(method, url, { ...options, key: options.key === undefined ? tenant.apiKey : options.key }) };
}

async function define(h: Harness, body: Record<string, unknown>, key?: string) {
  const res = await h.request('POST', '/api/v1/custom-properties', { body: { entity_type: 'CUSTOMER', name: String(body.key), type: 'TEXT', ...body }, key });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function createCustomer(h: Harness, custom_properties: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return h.request('POST', '/api/v1/customers', { body: { name: 'Acme', currency: 'EUR', custom_properties, ...extra } });
}

function expect400(res: { statusCode: number; body: string; json(): any }, ...parts: string[]) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json().code).toBe('BAD_REQUEST');
  for (const part of parts) expect(res.json().message).toContain(part);
}

describe('custom property definitions', () => {
  it('creates, gets, lists by entity type, updates, archives and unarchives; key and type are fixed', async () => {
    const h = await isolated(harness());
    const created = await define(h, { key: 'tier', name: 'Support tier', type: 'SINGLE_SELECT', options: ['bronze', 'silver', 'gold'], required: true, default_value: 'bronze', display_order: 2 });
    expect(created).toEqual({
      id: expect.stringMatching(/^cprop_[0-9A-Z]{26}$/),
      entity_type: 'CUSTOMER', key: 'tier', name: 'Support tier', description: null, type: 'SINGLE_SELECT', options: ['bronze', 'silver', 'gold'],
      required: true, default_value: 'bronze', display_order: 2, print_on_pdf: false,
      created_at: h.clock.now().toISOString(), updated_at: h.clock.now().toISOString(), archived_at: null,
    });
    await define(h, { entity_type: 'INVOICE', key: 'erp_id', print_on_pdf: true });
    expect((await h.request('GET', `/api/v1/custom-properties/${created.id}`)).json()).toEqual(created);
    const customerOnes = (await h.request('GET', '/api/v1/custom-properties?entity_type=CUSTOMER')).json();
    expect(customerOnes.data.map((d: { key: string }) => d.key)).toEqual(['tier']);
    expect(customerOnes.pagination_meta.total_items).toBe(1);
    expect((await h.request('GET', '/api/v1/custom-properties')).json().data).toHaveLength(2);

    const updated = await h.request('PATCH', `/api/v1/custom-properties/${created.id}`, { body: { name: 'Support level', options: ['bronze', 'silver', 'gold', 'platinum'] } });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ key: 'tier', name: 'Support level', options: ['bronze', 'silver', 'gold', 'platinum'] });
    expect400(await h.request('PATCH', `/api/v1/custom-properties/${created.id}`, { body: { key: 'level' } }), 'key cannot change');
    expect400(await h.request('PATCH', `/api/v1/custom-properties/${created.id}`, { body: { type: 'TEXT' } }), 'type cannot change');
    // the default must hold under the new options
    expect400(await h.request('PATCH', `/api/v1/custom-properties/${created.id}`, { body: { options: ['gold'] } }), 'default_value must be one of "gold"');

    const archived = await h.request('POST', `/api/v1/custom-properties/${created.id}/archive`);
    expect(archived.json().archived_at).toBe(h.clock.now().toISOString());
    expect((await h.request('GET', '/api/v1/custom-properties?entity_type=CUSTOMER&archived=false')).json().data).toEqual([]);
    // archived: no longer required, but the key stays taken
    expect((await createCustomer(h, {})).statusCode).toBe(201);
    expect((await h.request('POST', '/api/v1/custom-properties', { body: { entity_type: 'CUSTOMER', key: 'tier', name: 'Again', type: 'TEXT' } })).statusCode).toBe(409);
    expect((await h.request('POST', `/api/v1/custom-properties/${created.id}/unarchive`)).json().archived_at).toBeNull();
    const customer = await createCustomer(h, {});
    expect(customer.json().custom_properties).toEqual({ tier: 'bronze' });
  });

  it('is invisible to another tenant, and the same key is free there and for another entity type', async () => {
    const h = await isolated(harness());
    const created = await define(h, { key: 'region' });
    expect((await h.request('GET', `/api/v1/custom-properties/${created.id}`, { key: h.other.apiKey })).statusCode).toBe(404);
    expect((await h.request('PATCH', `/api/v1/custom-properties/${created.id}`, { body: { name: 'x' }, key: h.other.apiKey })).statusCode).toBe(404);
    expect((await h.request('POST', `/api/v1/custom-properties/${created.id}/archive`, { key: h.other.apiKey })).statusCode).toBe(404);
    expect((await h.request('GET', '/api/v1/custom-properties', { key: h.other.apiKey })).json().data.map((d: { key: string }) => d.key)).not.toContain('region');
    await define(h, { key: 'region' }, h.other.apiKey);
    await define(h, { key: 'region', entity_type: 'INVOICE' });
  });

  it('refuses malformed definitions with a 400 naming the field', async () => {
    const h = await isolated(harness());
    const post = (body: Record<string, unknown>) => h.request('POST', '/api/v1/custom-properties', { body: { entity_type: 'CUSTOMER', name: 'X', type: 'TEXT', ...body } });
    expect400(await post({ key: 'has-dash' }), 'key must be 1 to 64 letters, digits or underscores', 'e.g.');
    expect400(await post({ key: 'k1', options: ['a'] }), 'options are only for SINGLE_SELECT and MULTI_SELECT');
    expect400(await post({ key: 'k2', type: 'MULTI_SELECT' }), 'options must list the choices');
    expect400(await post({ key: 'k3', type: 'SINGLE_SELECT', options: ['a', 'a'] }), "options must be distinct; 'a'");
    expect400(await post({ key: 'k4', type: 'NUMBER', default_value: 12 }), 'default_value must be a decimal string', 'e.g. "12.5"');
    expect400(await post({ key: 'k5', print_on_pdf: true }), 'print_on_pdf is only for INVOICE');
    expect400(await post({ key: 'k6', name: '   ' }), 'name must not be blank');
    expect400(await post({ key: 'k7', type: 'JSON' }), 'type');
    expect((await h.request('GET', '/api/v1/custom-properties')).json().data).toEqual([]);
  });
});

describe('custom property values on customers', () => {
  it('checks each type, names custom_properties.<key> with the expected type and an example, and stores normalized values', async () => {
    const h = await isolated(harness());
    await define(h, { key: 'seats', type: 'NUMBER' });
    await define(h, { key: 'vip', type: 'BOOLEAN' });
    await define(h, { key: 'renewal', type: 'DATE' });
    await define(h, { key: 'signed_at', type: 'DATE_TIME' });
    await define(h, { key: 'plan', type: 'SINGLE_SELECT', options: ['basic', 'pro'] });
    await define(h, { key: 'channels', type: 'MULTI_SELECT', options: ['email', 'sms', 'phone'] });
    await define(h, { key: 'contract', type: 'URL' });
    await define(h, { key: 'owner', type: 'EMAIL' });
    const cases: [Record<string, unknown>, string[]][] = [
      [{ seats: 12 }, ['custom_properties.seats must be a decimal string (type NUMBER), e.g. "12.5"; got 12']],
      [{ seats: '1e3' }, ['custom_properties.seats', 'type NUMBER']],
      [{ vip: 'yes' }, ['custom_properties.vip must be true or false (type BOOLEAN), e.g. true']],
      [{ renewal: '2026-02-30' }, ['custom_properties.renewal must be a YYYY-MM-DD calendar date (type DATE), e.g. "2026-03-31"']],
      [{ signed_at: '2026-03-31 09:30' }, ['custom_properties.signed_at', 'type DATE_TIME', 'e.g. "2026-03-31T09:30:00Z"']],
      [{ plan: 'enterprise' }, ['custom_properties.plan must be one of "basic", "pro" (type SINGLE_SELECT), e.g. "basic"']],
      [{ channels: ['email', 'fax'] }, ['custom_properties.channels must be an array of distinct values among "email", "sms", "phone" (type MULTI_SELECT)']],
      [{ channels: ['sms', 'sms'] }, ['custom_properties.channels']],
      [{ contract: 'ftp://files.example.com/c.pdf' }, ['custom_properties.contract must be an absolute http or https URL (type URL)']],
      [{ owner: 'not-an-email' }, ['custom_properties.owner must be an e-mail address (type EMAIL), e.g. "billing@example.com"']],
      [{ notes: 3 }, ['custom_properties.notes must be a string', 'free-form']],
    ];
    for (const [values, parts] of cases) expect400(await createCustomer(h, values), ...parts);
    // none of the refused writes left a customer behind
    expect((await h.request('GET', '/api/v1/customers')).json().pagination_meta.total_items).toBe(0);

    const ok = await createCustomer(h, {
      seats: '12.50', vip: true, renewal: '2027-01-31', signed_at: '2026-03-31T11:30:00+02:00', plan: 'pro', channels: ['sms', 'email'],
      contract: 'https://example.com/contracts/42', owner: 'ops@example.com', notes: 'free-form text',
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().custom_properties).toEqual({
      seats: '12.5', vip: true, renewal: '2027-01-31', signed_at: '2026-03-31T09:30:00.000Z', plan: 'pro', channels: ['sms', 'email'],
      contract: 'https://example.com/contracts/42', owner: 'ops@example.com', notes: 'free-form text',
    });
    // PUT and PATCH are checked the same way; a refused PATCH changes nothing
    expect400(await h.request('PATCH', `/api/v1/customers/${ok.json().id}`, { body: { name: 'Renamed', custom_properties: { vip: 1 } } }), 'custom_properties.vip');
    expect((await h.request('GET', `/api/v1/customers/${ok.json().id}`)).json()).toMatchObject({ name: 'Acme', custom_properties: { vip: true } });
    expect400(await h.request('PUT', `/api/v1/customers/${ok.json().id}`, { body: { name: 'Acme', currency: 'EUR', invoicing_emails: [], custom_taxes: [], custom_properties: { plan: 'gold' } } }), 'custom_properties.plan');
    const patched = await h.request('PATCH', `/api/v1/customers/${ok.json().id}`, { body: { custom_properties: { vip: false, seats: null } } });
    expect(patched.json().custom_properties).toEqual({ vip: false });
  });

  it('applies defaults on creation, requires required keys on every write, and checks legacy values on the next write', async () => {
    const h = await isolated(harness());
    // a customer from before the definitions: free-form strings
    const legacy = await createCustomer(h, { segment: 'smb', score: 'high', crm_id: '0015g' });
    expect(legacy.statusCode).toBe(201);
    await define(h, { key: 'score', type: 'NUMBER' });
    await define(h, { key: 'region', type: 'SINGLE_SELECT', options: ['emea', 'amer'], default_value: 'emea' });
    await define(h, { key: 'segment', type: 'SINGLE_SELECT', options: ['smb', 'enterprise'], required: true });
    // still readable as stored
    expect((await h.request('GET', `/api/v1/customers/${legacy.json().id}`)).json().custom_properties).toEqual({ segment: 'smb', score: 'high', crm_id: '0015g' });
    // in list items too, and a key without a definition still filters as text
    const listed = await h.request('GET', '/api/v1/customers?custom_properties[crm_id]=0015g');
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().data.map((c: { id: string; custom_properties: unknown }) => [c.id, c.custom_properties])).toEqual([[legacy.json().id, { segment: 'smb', score: 'high', crm_id: '0015g' }]]);
    // the next write checks the stored value of a defined key
    expect400(await h.request('PATCH', `/api/v1/customers/${legacy.json().id}`, { body: { phone: '+33 1' } }), 'custom_properties.score must be a decimal string', 'got "high"');
    const fixed = await h.request('PATCH', `/api/v1/customers/${legacy.json().id}`, { body: { custom_properties: { segment: 'smb', score: '7', crm_id: '0015g' } } });
    expect(fixed.statusCode, fixed.body).toBe(200);
    // not created now, so the non-required default is not added; free-form keys stay
    expect(fixed.json().custom_properties).toEqual({ segment: 'smb', score: '7', crm_id: '0015g' });

    expect400(await createCustomer(h, {}), 'custom_properties.segment is required', 'type SINGLE_SELECT', '{"custom_properties": {"segment": "smb"}}');
    const fresh = await createCustomer(h, { segment: 'enterprise' });
    expect(fresh.json().custom_properties).toEqual({ segment: 'enterprise', region: 'emea' });
    expect400(await h.request('PATCH', `/api/v1/customers/${fresh.json().id}`, { body: { custom_properties: { region: 'amer' } } }), 'custom_properties.segment is required');
  });
});

describe('list filters', () => {
  it('filters customers and invoices by custom_properties[<key>], read as the key\'s type', async () => {
    const h = await isolated(harness());
    await define(h, { key: 'tier', type: 'SINGLE_SELECT', options: ['silver', 'gold'] });
    await define(h, { key: 'vip', type: 'BOOLEAN' });
    await define(h, { key: 'channels', type: 'MULTI_SELECT', options: ['email', 'sms'] });
    await define(h, { key: 'seats', type: 'NUMBER' });
    const a = (await createCustomer(h, { tier: 'gold', vip: true, channels: ['email', 'sms'], seats: '10', crm: 'A-1' }, { alias: 'a' })).json();
    const b = (await createCustomer(h, { tier: 'gold', vip: false, channels: ['sms'], seats: '20' }, { alias: 'b' })).json();
    await createCustomer(h, { tier: 'silver', vip: true }, { alias: 'c' });
    const ids = async (query: string) => {
      const res = await h.request('GET', `/api/v1/customers?order_by=alias.asc&${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.map((c: { alias: string }) => c.alias);
    };
    expect(await ids('custom_properties[tier]=gold')).toEqual(['a', 'b']);
    expect(await ids('custom_properties[tier]=gold&custom_properties[vip]=true')).toEqual(['a']);
    expect(await ids('custom_properties[vip]=false')).toEqual(['b']);
    expect(await ids('custom_properties[channels]=email')).toEqual(['a']);
    expect(await ids('custom_properties[seats]=10.00')).toEqual(['a']);
    expect(await ids('custom_properties[crm]=A-1')).toEqual(['a']);
    expect(await ids('custom_properties[crm]=nothing')).toEqual([]);
    expect((await h.request('GET', '/api/v1/customers?custom_properties[tier]=gold')).json().pagination_meta.total_items).toBe(2);
    expect400(await h.request('GET', '/api/v1/customers?custom_properties[vip]=yes'), 'custom_properties[vip] must be true or false');
    expect400(await h.request('GET', '/api/v1/customers?custom_properties[tier]=platinum'), 'custom_properties[tier] must be one of "silver", "gold"');
    expect400(await h.request('GET', '/api/v1/customers?custom_properties[channels]=fax'), 'custom_properties[channels] must be one option');
    expect400(await h.request('GET', '/api/v1/customers?custom_property=x'), 'custom_property is not a known query parameter');
    // another tenant's customers never match
    expect((await h.request('GET', '/api/v1/customers?custom_properties[crm]=A-1', { key: h.other.apiKey })).json().data).toEqual([]);

    await define(h, { entity_type: 'INVOICE', key: 'erp_status', type: 'SINGLE_SELECT', options: ['pending', 'exported'], default_value: 'pending' });
    const first = await createDraft(h, a.id);
    const second = await createDraft(h, b.id);
    // the draft took the default
    expect(first.invoice.custom_properties).toEqual({ erp_status: 'pending' });
    await h.request('PATCH', `/api/v1/invoices/${second.invoice.id}`, { body: { custom_properties: { erp_status: 'exported' } } });
    const invoices = async (query: string) => (await h.request('GET', `/api/v1/invoices?${query}`)).json().data.map((i: { id: string }) => i.id);
    expect(await invoices('custom_properties[erp_status]=exported')).toEqual([second.invoice.id]);
    expect(await invoices('custom_properties[erp_status]=pending')).toEqual([first.invoice.id]);
  });
});

describe('invoices', () => {
  it('edits values after finalization without touching amounts, and prints the marked ones on the PDF', async () => {
    const h = await isolated(harness());
    await define(h, { entity_type: 'INVOICE', key: 'cost_center', name: 'Cost center', print_on_pdf: true, display_order: 1 });
    await define(h, { entity_type: 'INVOICE', key: 'internal_ref', name: 'Internal reference' });
    const customer = (await createCustomer(h, {})).json();
    const draft = await createDraft(h, customer.id);
    const set = await h.request('PATCH', `/api/v1/invoices/${draft.invoice.id}`, { body: { custom_properties: { cost_center: 'CC-4410', internal_ref: 'secret-77' } } });
    expect(set.statusCode, set.body).toBe(200);
    const finalized = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    expect(finalized.statusCode, finalized.body).toBe(200);
    const before = finalized.json();
    expect(before.custom_properties).toEqual({ cost_center: 'CC-4410', internal_ref: 'secret-77' });

    const pdf = await h.request('GET', `/api/v1/invoices/${draft.invoice.id}/download`);
    expect(pdf.statusCode).toBe(200);
    const text = await pdfText(pdf.rawPayload);
    expect(text).toContain('Cost center');
    expect(text).toContain('CC-4410');
    expect(text).not.toContain('secret-77'); // not marked print_on_pdf

    const edited = await h.request('PATCH', `/api/v1/invoices/${draft.invoice.id}`, { body: { custom_properties: { cost_center: 'CC-5000' } } });
    expect(edited.statusCode, edited.body).toBe(200);
    const after = edited.json();
    expect(after.custom_properties).toEqual({ cost_center: 'CC-5000' });
    const { custom_properties: _a, updated_at: _u1, payment_url: _p1, ...restAfter } = after;
    const { custom_properties: _b, updated_at: _u2, payment_url: _p2, ...restBefore } = before;
    expect(restAfter).toEqual(restBefore); // number, status, amounts, lines: unchanged
    expect((await h.request('GET', `/api/v1/invoices/${draft.invoice.id}`)).json().custom_properties).toEqual({ cost_center: 'CC-5000' });
    const events = await outbox(h, draft.invoice.id);
    expect(events.filter((e) => e.event_type === 'invoice.finalized')[0]!.payload.custom_properties).toEqual({ cost_center: 'CC-4410', internal_ref: 'secret-77' });
    expect(events.at(-1)).toMatchObject({ event_type: 'invoice.updated', payload: { invoice_id: draft.invoice.id, status: 'FINALIZED', custom_properties: { cost_center: 'CC-5000' } } });

    expect400(await h.request('PATCH', `/api/v1/invoices/${draft.invoice.id}`, { body: { custom_properties: { cost_center: 42 } } }), 'custom_properties.cost_center must be a string');
    expect400(await h.request('PATCH', `/api/v1/invoices/${draft.invoice.id}`, { body: { total: '1.00', custom_properties: {} } }), 'total');
    expect((await h.request('PATCH', `/api/v1/invoices/${draft.invoice.id}`, { body: { custom_properties: {} }, key: h.other.apiKey })).statusCode).toBe(404);
  });
});

describe('products, subscriptions and credit notes', () => {
  it('check values on create and update, return them, filter lists by them and carry them in events', async () => {
    const h = await isolated(harness());
    await define(h, { entity_type: 'PRODUCT', key: 'gl_code', type: 'NUMBER', required: true });
    await define(h, { entity_type: 'SUBSCRIPTION', key: 'channel', type: 'SINGLE_SELECT', options: ['direct', 'partner'], default_value: 'direct' });
    await define(h, { entity_type: 'CREDIT_NOTE', key: 'ticket', type: 'URL' });

    // products: required NUMBER
    const family = (await h.request('POST', '/api/v1/product_families', { body: { name: 'Fam' } })).json();
    const product = (body: Record<string, unknown>) => h.request('POST', '/api/v1/products', { body: { name: 'Seats', product_family_id: family.id, fee_structure: { type: 'RATE' }, ...body } });
    expect400(await product({}), 'custom_properties.gl_code is required', 'type NUMBER');
    expect400(await product({ custom_properties: { gl_code: 'x' } }), 'custom_properties.gl_code must be a decimal string');
    const created = await product({ custom_properties: { gl_code: '7010' } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().custom_properties).toEqual({ gl_code: '7010' });
    expect400(await h.request('PATCH', `/api/v1/products/${created.json().id}`, { body: { custom_properties: { gl_code: true } } }), 'custom_properties.gl_code');
    expect((await h.request('PATCH', `/api/v1/products/${created.json().id}`, { body: { custom_properties: { gl_code: '7020' } } })).json().custom_properties).toEqual({ gl_code: '7020' });
    expect((await h.request('GET', '/api/v1/products?custom_properties[gl_code]=7020')).json().data.map((p: { id: string }) => p.id)).toEqual([created.json().id]);
    expect((await h.request('GET', '/api/v1/products?custom_properties[gl_code]=7010')).json().data).toEqual([]);
    expect((await outbox(h, created.json().id)).at(-1)).toMatchObject({ event_type: 'product.updated', payload: { custom_properties: { gl_code: '7020' } } });

    // subscriptions: defaulted SINGLE_SELECT (the seeded plan's products must carry the required gl_code, so it is archived first)
    await h.request('POST', `/api/v1/custom-properties/${(await h.request('GET', '/api/v1/custom-properties?entity_type=PRODUCT')).json().data[0].id}/archive`);
    const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    const customer = (await createCustomer(h, {})).json();
    const subscribe = (extra: Record<string, unknown>) => h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_id: plan.planId, start_date: '2026-04-01', ...extra } });
    expect400(await subscribe({ custom_properties: { channel: 'reseller' } }), 'custom_properties.channel must be one of "direct", "partner"');
    const first = await subscribe({});
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().custom_properties).toEqual({ channel: 'direct' });
    const second = (await subscribe({ custom_properties: { channel: 'partner' } })).json();
    const patched = await h.request('PATCH', `/api/v1/subscriptions/${first.json().id}`, { body: { custom_properties: { channel: 'partner', deal: 'Q2' } } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().subscription.custom_properties).toEqual({ channel: 'partner', deal: 'Q2' });
    // both are created at the same (manual) clock instant, so compare as sets
    const subscriptions = async (query: string) => (await h.request('GET', `/api/v1/subscriptions?${query}`)).json().data.map((x: { id: string }) => x.id).sort();
    expect(await subscriptions('custom_properties[channel]=partner')).toEqual([first.json().id, second.id].sort());
    expect(await subscriptions('custom_properties[deal]=Q2')).toEqual([first.json().id]);
    expect((await outbox(h, first.json().id)).at(-1)).toMatchObject({ event_type: 'subscription.updated', payload: { custom_properties: { channel: 'partner', deal: 'Q2' } } });

    // credit notes: URL, set at creation and editable on a finalized note
    const draft = await createDraft(h, customer.id);
    expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`)).statusCode).toBe(200);
    const note = (extra: Record<string, unknown>) => h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: draft.invoice.id, reason: 'Outage', credit_type: 'CREDIT_TO_BALANCE', ...extra } });
    expect400(await note({ custom_properties: { ticket: 'SUP-1' } }), 'custom_properties.ticket must be an absolute http or https URL');
    const credit = await note({ custom_properties: { ticket: 'https://support.example.com/SUP-1' } });
    expect(credit.statusCode, credit.body).toBe(201);
    expect(credit.json().custom_properties).toEqual({ ticket: 'https://support.example.com/SUP-1' });
    expect((await outbox(h, credit.json().id))[0]).toMatchObject({ event_type: 'credit_note.created', payload: { custom_properties: { ticket: 'https://support.example.com/SUP-1' } } });
    expect((await h.request('POST', `/api/v1/credit-notes/${credit.json().id}/finalize`)).statusCode).toBe(200);
    const edited = await h.request('PATCH', `/api/v1/credit-notes/${credit.json().id}`, { body: { custom_properties: { ticket: 'https://support.example.com/SUP-2' } } });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({ status: 'FINALIZED', total: credit.json().total, custom_properties: { ticket: 'https://support.example.com/SUP-2' } });
    expect((await h.request('GET', '/api/v1/credit-notes?custom_properties[ticket]=https://support.example.com/SUP-2')).json().data.map((c: { id: string }) => c.id)).toEqual([credit.json().id]);
    expect((await outbox(h, credit.json().id)).at(-1)).toMatchObject({ event_type: 'credit_note.updated', payload: { status: 'FINALIZED', custom_properties: { ticket: 'https://support.example.com/SUP-2' } } });
  });
});

describe('plans', () => {
  it('check values on create, PUT and PATCH, return them on get and list, filter the list and carry them in plan events', async () => {
    const h = await isolated(harness());
    await define(h, { entity_type: 'PLAN', key: 'segment', type: 'SINGLE_SELECT', options: ['smb', 'enterprise'], required: true, default_value: 'smb' });
    await define(h, { entity_type: 'PLAN', key: 'launch', type: 'DATE' });
    const family = (await h.request('POST', '/api/v1/product_families', { body: { name: 'Fam' } })).json();
    const rate = (await h.request('POST', '/api/v1/products', { body: { name: 'Base', product_family_id: family.id, fee_structure: { type: 'RATE' } } })).json();
    const body = (extra: Record<string, unknown>) => ({ name: 'Pro', currency: 'EUR', product_family_id: family.id, components: [{ name: 'Base', product_id: rate.id, fee: { rates: [{ price: '49.00' }] } }], ...extra });

    expect400(await h.request('POST', '/api/v1/plans', { body: body({ custom_properties: { launch: '2026-13-01' } }) }), 'custom_properties.launch must be a YYYY-MM-DD calendar date (type DATE)');
    expect400(await h.request('POST', '/api/v1/plans', { body: body({ custom_properties: { segment: 'consumer' } }) }), 'custom_properties.segment must be one of "smb", "enterprise"');
    expect((await h.request('GET', '/api/v1/plans')).json().data).toEqual([]); // the refused creates wrote nothing
    const created = await h.request('POST', '/api/v1/plans', { body: body({ status: 'ACTIVE', custom_properties: { launch: '2026-04-01' } }) });
    expect(created.statusCode, created.body).toBe(201);
    const plan = created.json();
    expect(plan.custom_properties).toEqual({ segment: 'smb', launch: '2026-04-01' }); // the required key took its default
    const other = (await h.request('POST', '/api/v1/plans', { body: body({ name: 'Enterprise', custom_properties: { segment: 'enterprise' } }) })).json();
    expect((await h.request('GET', `/api/v1/plans/${plan.id}`)).json().custom_properties).toEqual({ segment: 'smb', launch: '2026-04-01' });

    // PATCH replaces the object; a wrong value is refused and changes nothing
    expect400(await h.request('PATCH', `/api/v1/plans/${plan.id}`, { body: { name: 'Renamed', custom_properties: { launch: 20260401 } } }), 'custom_properties.launch');
    expect((await h.request('GET', `/api/v1/plans/${plan.id}`)).json()).toMatchObject({ name: 'Pro', custom_properties: { segment: 'smb', launch: '2026-04-01' } });
    const patched = await h.request('PATCH', `/api/v1/plans/${plan.id}`, { body: { custom_properties: { segment: 'enterprise', crm_product: 'P-9' } } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().custom_properties).toEqual({ segment: 'enterprise', crm_product: 'P-9' });
    // a PUT without custom_properties keeps them (they belong to the plan, not to a version)
    const replaced = await h.request('PUT', `/api/v1/plans/${plan.id}`, { body: { name: 'Pro', currency: 'EUR', components: body({}).components } });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toMatchObject({ version: 2, custom_properties: { segment: 'enterprise', crm_product: 'P-9' } });
    expect400(await h.request('PUT', `/api/v1/plans/${plan.id}`, { body: { ...body({}), custom_properties: { segment: null, launch: 'soon' } } }), 'custom_properties.launch');

    const listed = async (query: string) => (await h.request('GET', `/api/v1/plans?${query}`)).json().data.map((p: { id: string; custom_properties: object }) => [p.id, p.custom_properties]);
    // both are created at the same (manual) clock instant, so compare as sets
    expect((await listed('custom_properties[segment]=enterprise')).sort()).toEqual([
      [other.id, { segment: 'enterprise' }],
      [plan.id, { segment: 'enterprise', crm_product: 'P-9' }],
    ].sort());
    expect(await listed('custom_properties[crm_product]=P-9')).toEqual([[plan.id, { segment: 'enterprise', crm_product: 'P-9' }]]);
    expect(await listed('custom_properties[segment]=smb')).toEqual([]);
    expect400(await h.request('GET', '/api/v1/plans?custom_properties[segment]=consumer'), 'custom_properties[segment] must be one of "smb", "enterprise"');

    const events = await outbox(h, plan.id);
    expect(events.find((e) => e.event_type === 'plan.created')).toMatchObject({ payload: { plan_id: plan.id, custom_properties: { segment: 'smb', launch: '2026-04-01' } } });
    expect(events.find((e) => e.event_type === 'plan.updated')).toMatchObject({ payload: { plan_id: plan.id, custom_properties: { segment: 'enterprise', crm_product: 'P-9' } } });
    expect(events.at(-1)).toMatchObject({ event_type: 'plan.published', payload: { version: 2, custom_properties: { segment: 'enterprise', crm_product: 'P-9' } } });
  });
});

describe('required INVOICE properties and billing runs', () => {
  it('billing-run invoices take the defaults; a required key without a default stays empty, never blocks finalization, and is asked for by the next PATCH', async () => {
    const h = await isolated(harness());
    await define(h, { entity_type: 'INVOICE', key: 'cost_center', required: true, default_value: 'CC-100' });
    await define(h, { entity_type: 'INVOICE', key: 'approver', type: 'EMAIL', required: true });
    await define(h, { entity_type: 'INVOICE', key: 'erp_status', type: 'SINGLE_SELECT', options: ['pending', 'exported'] });
    const { subscriptionId } = await backdatedSubscription(h);
    await h.service.tasks['billing.run']!({ once: true });
    const list = (await h.request('GET', `/api/v1/invoices?subscription_id=${subscriptionId}&order_by=invoice_date.asc`)).json().data;
    // January to March, finalized by the same run (past their grace period)
    expect(list.map((i: { status: string; custom_properties: object }) => [i.status, i.custom_properties])).toEqual([
      ['FINALIZED', { cost_center: 'CC-100' }], ['FINALIZED', { cost_center: 'CC-100' }], ['FINALIZED', { cost_center: 'CC-100' }],
    ]);
    const created = (await outbox(h, list[0].id)).find((e) => e.event_type === 'invoice.created');
    expect(created!.payload.custom_properties).toEqual({ cost_center: 'CC-100' });

    // the merchant fills the missing value in afterwards; a PATCH without it is refused and changes nothing
    expect400(await h.request('PATCH', `/api/v1/invoices/${list[0].id}`, { body: { custom_properties: { cost_center: 'CC-200' } } }), 'custom_properties.approver is required', 'type EMAIL');
    expect((await h.request('GET', `/api/v1/invoices/${list[0].id}`)).json().custom_properties).toEqual({ cost_center: 'CC-100' });
    const filled = await h.request('PATCH', `/api/v1/invoices/${list[0].id}`, { body: { custom_properties: { cost_center: 'CC-200', approver: 'cfo@client.example' } } });
    expect(filled.statusCode, filled.body).toBe(200);
    expect(filled.json()).toMatchObject({ status: 'FINALIZED', total: list[0].total, invoice_number: list[0].invoice_number, custom_properties: { cost_center: 'CC-200', approver: 'cfo@client.example' } });
    // a PATCH that leaves the required key with a default out gets the default back
    const defaulted = await h.request('PATCH', `/api/v1/invoices/${list[1].id}`, { body: { custom_properties: { approver: 'cfo@client.example' } } });
    expect(defaulted.json().custom_properties).toEqual({ cost_center: 'CC-100', approver: 'cfo@client.example' });
  });
});

describe('webhook payloads', () => {
  it('carry the custom_properties of the object', async () => {
    const h = await isolated(harness());
    const endpoint = await h.request('POST', '/api/v1/webhooks/endpoints', { body: { url: `${baseUrl}/cprops`, event_types: ['customer.created', 'customer.updated'] } });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    await define(h, { key: 'vip', type: 'BOOLEAN', default_value: false });
    const customer = (await createCustomer(h, { crm_id: '0015g' })).json();
    await h.request('PATCH', `/api/v1/customers/${customer.id}`, { body: { custom_properties: { crm_id: '0015g', vip: true } } });
    await h.drainJobs();
    await expect.poll(() => receiver.at('/cprops').length).toBe(2);
    const [created, updated] = receiver.at('/cprops');
    // the reference's envelope: the event data's fields beside id, type and timestamp
    expect(created!.json).toMatchObject({ type: 'customer.created', customer_id: customer.id, custom_properties: { crm_id: '0015g', vip: false } });
    expect(updated!.json).toMatchObject({ type: 'customer.updated', custom_properties: { crm_id: '0015g', vip: true } });
  });
});
