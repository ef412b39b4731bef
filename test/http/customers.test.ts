import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';

const harness = useHarness();

async function createCustomer(body: Record<string, unknown> = {}, key?: string) {
  const res = await harness().request('POST', '/api/v1/customers', { body: { name: 'Acme', currency: 'EUR', ...body }, key });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function eventsOf(objectId: string) {
  const { rows } = await harness().db.pool.query(`SELECT event_type, payload FROM outbox_events WHERE object_id = $1 ORDER BY seq`, [objectId]);
  return rows as { event_type: string; payload: Record<string, unknown> }[];
}

describe('customers: create and read', () => {
  it('creates a customer with every field and reads it by id and alias', async () => {
    const h = harness();
    const body = {
      name: 'Globex',
      alias: 'crm-42',
      currency: 'EUR',
      billing_email: 'billing@globex.test',
      invoicing_emails: ['ap@globex.test'],
      phone: '+33 1 23',
      billing_address: { line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' },
      shipping_address: { same_as_billing: true },
      vat_number: 'FR123',
      reverse_charge: true,
      custom_taxes: [{ name: 'Local', rate: '0.055', tax_code: 'L1' }],
      custom_properties: { crm_segment: 'enterprise' },
    };
    const created = await createCustomer(body);
    expect(created).toEqual({
      id: expect.stringMatching(/^cus_[0-9A-Z]{26}$/),
      name: 'Globex',
      alias: 'crm-42',
      billing_email: 'billing@globex.test',
      invoicing_emails: ['ap@globex.test'],
      phone: '+33 1 23',
      currency: 'EUR',
      billing_address: { line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' },
      shipping_address: { same_as_billing: true },
      vat_number: 'FR123',
      is_tax_exempt: false,
      reverse_charge: true,
      custom_taxes: [{ name: 'Local', rate: '0.055', tax_code: 'L1' }],
      custom_properties: { crm_segment: 'enterprise' },
      // none named: the tenant's default entity (created on first use)
      invoicing_entity_id: (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0].id,
      connected_account_id: null,
      test_clock_id: null,
      balance: '0.00',
      created_at: '2026-03-15T12:00:00.000Z',
      archived_at: null,
    });
    expect((await h.request('GET', `/api/v1/customers/${created.id}`)).json()).toEqual(created);
    expect((await h.request('GET', '/api/v1/customers/crm-42')).json()).toEqual(created);
    const events = await eventsOf(created.id);
    expect(events).toEqual([{
      event_type: 'customer.created',
      payload: { customer_id: created.id, name: 'Globex', alias: 'crm-42', billing_email: 'billing@globex.test', invoicing_emails: ['ap@globex.test'], phone: '+33 1 23', currency: 'EUR', custom_properties: { crm_segment: 'enterprise' } },
    }]);
  });

  it('refuses a duplicate alias in the tenant with 409 but allows it in another tenant', async () => {
    const h = harness();
    await createCustomer({ alias: 'dup-1' });
    const again = await h.request('POST', '/api/v1/customers', { body: { name: 'B', currency: 'EUR', alias: 'dup-1' } });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ code: 'CONFLICT', message: "alias 'dup-1' is already used by another customer" });
    const elsewhere = await createCustomer({ alias: 'dup-1' }, h.other.apiKey);
    expect(elsewhere.alias).toBe('dup-1');
  });

  it('validates fields with messages that name them', async () => {
    const h = harness();
    const cases: [Record<string, unknown>, string][] = [
      [{ currency: 'EUR' }, 'name is required'],
      [{ name: 'x', currency: 'euro' }, 'currency'],
      [{ name: 'x', currency: 'EUR', custom_properties: { tier: 3 } }, 'custom_properties.tier must be a string'],
      [{ name: 'x', currency: 'EUR', custom_taxes: [{ name: 't', rate: 0.2, tax_code: 'c' }] }, 'custom_taxes[0].rate must be a decimal string such as "0.2", not a JSON number'],
      [{ name: 'x', currency: 'EUR', custom_taxes: [{ name: 't', rate: '1.5', tax_code: 'c' }] }, 'custom_taxes[0].rate must be a fraction between 0 and 1'],
      [{ name: 'x', currency: 'EUR', billing_email: 'nope' }, "billing_email 'nope' is not an e-mail address"],
      [{ name: 'x', currency: 'EUR', invoicing_emails: ['a@b.co', 'bad'] }, "invoicing_emails[1] 'bad' is not an e-mail address"],
      [{ name: 'x', currency: 'EUR', reverse_charge: true }, 'reverse_charge needs a vat_number'],
      [{ name: 'x', currency: 'EUR', billing_address: { country: 'France' } }, 'billing_address.country'],
      [{ name: 'x', currency: 'EUR', color: 'red' }, 'color is not a known field'],
    ];
    for (const [body, message] of cases) {
      const res = await h.request('POST', '/api/v1/customers', { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('BAD_REQUEST');
      expect(res.json().message).toContain(message);
    }
  });

  it('lists with search, order_by, paging and the archived filter', async () => {
    const h = harness();
    const prefix = `list-${Date.now()}`;
    for (const name of ['Charlie', 'alpha', 'Bravo']) await createCustomer({ name: `${prefix} ${name}`, alias: `${prefix}-${name}` });
    const page0 = await h.request('GET', `/api/v1/customers?search=${prefix}&order_by=name.asc&per_page=2`);
    expect(page0.statusCode).toBe(200);
    expect(page0.json().data.map((c: { name: string }) => c.name)).toEqual([`${prefix} alpha`, `${prefix} Bravo`]);
    expect(page0.json().pagination_meta).toEqual({ page: 0, per_page: 2, total_items: 3, total_pages: 2 });
    const page1 = await h.request('GET', `/api/v1/customers?search=${prefix}&order_by=name.asc&per_page=2&page=1`);
    expect(page1.json().data.map((c: { name: string }) => c.name)).toEqual([`${prefix} Charlie`]);
    const bad = await h.request('GET', '/api/v1/customers?order_by=phone.asc');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('order_by');
    const tooMany = await h.request('GET', '/api/v1/customers?per_page=101');
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().message).toContain('per_page');
    await h.request('DELETE', `/api/v1/customers/${prefix}-Bravo`);
    const active = await h.request('GET', `/api/v1/customers?search=${prefix}`);
    expect(active.json().pagination_meta.total_items).toBe(2);
    const archived = await h.request('GET', `/api/v1/customers?search=${prefix}&archived=true`);
    expect(archived.json().data.map((c: { alias: string }) => c.alias)).toEqual([`${prefix}-Bravo`]);
  });
});

describe('customers: update, archive', () => {
  it('PUT replaces the customer; omitted optional fields are cleared', async () => {
    const h = harness();
    const c = await createCustomer({ alias: 'put-1', billing_email: 'a@b.co', phone: '1' });
    const res = await h.request('PUT', '/api/v1/customers/put-1', { body: { name: 'Renamed', currency: 'USD', invoicing_emails: [], custom_taxes: [] } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: c.id, name: 'Renamed', currency: 'USD', alias: null, billing_email: null, phone: null });
    const missing = await h.request('PUT', `/api/v1/customers/${c.id}`, { body: { name: 'x', currency: 'USD' } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toContain('invoicing_emails is required');
    const events = await eventsOf(c.id);
    expect(events.map((e) => e.event_type)).toEqual(['customer.created', 'customer.updated']);
  });

  it('PATCH changes only the given fields, and null clears a nullable one', async () => {
    const h = harness();
    const c = await createCustomer({ alias: 'patch-1', billing_email: 'a@b.co', custom_properties: { a: '1' } });
    const res = await h.request('PATCH', '/api/v1/customers/patch-1', { body: { phone: '+1 555', billing_email: null, custom_properties: { b: '2' } } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: c.id, name: 'Acme', alias: 'patch-1', phone: '+1 555', billing_email: null, custom_properties: { b: '2' }, currency: 'EUR' });
    const taken = await createCustomer({ alias: 'patch-2' });
    const clash = await h.request('PATCH', `/api/v1/customers/${taken.id}`, { body: { alias: 'patch-1' } });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().message).toContain("alias 'patch-1'");
  });

  it('archives (DELETE) and unarchives with {message} bodies', async () => {
    const h = harness();
    const c = await createCustomer({ alias: 'arch-1' });
    const del = await h.request('DELETE', '/api/v1/customers/arch-1');
    expect(del.statusCode).toBe(204);
    expect((await h.request('GET', `/api/v1/customers/${c.id}`)).json().archived_at).toBe('2026-03-15T12:00:00.000Z');
    const un = await h.request('POST', '/api/v1/customers/arch-1/unarchive');
    expect(un.statusCode).toBe(200);
    expect(un.json()).toEqual({ message: `customer ${c.id} unarchived` });
    expect((await h.request('GET', `/api/v1/customers/${c.id}`)).json().archived_at).toBeNull();
    const again = await h.request('POST', '/api/v1/customers/arch-1/unarchive');
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ message: 'customer is not archived' });
    const unknown = await h.request('POST', '/api/v1/customers/nobody/unarchive');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ message: 'customer not found' });
    expect((await eventsOf(c.id)).map((e) => e.event_type)).toEqual(['customer.created', 'customer.archived', 'customer.unarchived']);
  });

  it('credits and debits the balance in the customer currency', async () => {
    const h = harness();
    const c = await createCustomer({ currency: 'JPY' });
    const credited = await h.request('POST', `/api/v1/customers/${c.id}/balance`, { body: { amount: '1500', note: 'goodwill' } });
    expect(credited.statusCode, credited.body).toBe(200);
    expect(credited.json().balance).toBe('1500');
    const decimals = await h.request('POST', `/api/v1/customers/${c.id}/balance`, { body: { amount: '1.5' } });
    expect(decimals.statusCode).toBe(400);
    expect(decimals.json().message).toContain('amount must be a decimal string with at most 0 decimals for JPY');
    const overdraw = await h.request('POST', `/api/v1/customers/${c.id}/balance`, { body: { amount: '-2000' } });
    expect(overdraw.statusCode).toBe(400);
    expect(overdraw.json().message).toBe('amount would make the balance negative');
    h.clock.advance(1000);
    const debit = await h.request('POST', `/api/v1/customers/${c.id}/balance`, { body: { amount: '-500' } });
    expect(debit.json().balance).toBe('1000');
    const { rows } = await h.db.pool.query(`SELECT amount_minor, balance_after_minor, reason FROM customer_balance_transactions WHERE customer_id = $1 ORDER BY created_at, id`, [c.id]);
    expect(rows.map((r) => [r.amount_minor, r.balance_after_minor])).toEqual([[1500n, 1500n], [-500n, 1000n]]);
  });
});

describe('customers: tenant isolation', () => {
  it('answers 404 for another tenant on every operation', async () => {
    const h = harness();
    const c = await createCustomer({ alias: 'iso-1' });
    const key = h.other.apiKey;
    const calls = [
      h.request('GET', `/api/v1/customers/${c.id}`, { key }),
      h.request('GET', '/api/v1/customers/iso-1', { key }),
      h.request('PUT', `/api/v1/customers/${c.id}`, { key, body: { name: 'x', currency: 'EUR', invoicing_emails: [], custom_taxes: [] } }),
      h.request('PATCH', `/api/v1/customers/${c.id}`, { key, body: { name: 'x' } }),
      h.request('DELETE', `/api/v1/customers/${c.id}`, { key }),
      h.request('POST', `/api/v1/customers/${c.id}/balance`, { key, body: { amount: '1.00' } }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'customer not found' });
    }
    const list = await h.request('GET', '/api/v1/customers?search=iso-1', { key });
    expect(list.json().data).toEqual([]);
    expect((await h.request('GET', `/api/v1/customers/${c.id}`)).json().name).toBe('Acme');
  });
});
