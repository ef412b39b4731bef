// Several invoicing entities per tenant: create, list, get, update, the one default, archive
// rules, customers on an entity, and numbering per entity.
import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { dataUrl, discPng } from '../harness/png.js';
import { createCustomer, createDraft } from './invoices-support.js';

const harness = useHarness();

async function createEntity(h: Harness, body: Record<string, unknown>, key?: string) {
  const res = await h.request('POST', '/api/v1/invoicing-entities', { body, ...(key ? { key } : {}) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const badRequest = (field: string) => ({ code: 'BAD_REQUEST', message: expect.stringContaining(field) });

describe('invoicing entities: create, read, update', () => {
  it('creates a second entity with its own defaults and sequences, lists the default first, reads and updates it', async () => {
    const h = harness();
    const first = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
    const second = await createEntity(h, {
      legal_name: '  Tally Billing Inc. ',
      country: 'US',
      address_line1: '548 Market Street',
      city: 'San Francisco',
      state: 'CA',
      zip_code: '94104',
      tax_number: 'EIN 12-3456789',
      invoice_number_prefix: 'US-',
      net_terms: 15,
      vat_number: '   ',
      bank_details: { account_holder: 'Tally Billing Inc.', account_number: '000123456789', routing_number: '121000248' },
    });
    expect(second).toMatchObject({
      id: expect.stringMatching(/^ive_[0-9A-Z]{26}$/),
      is_default: false,
      legal_name: 'Tally Billing Inc.',
      country: 'US',
      tax_number: 'EIN 12-3456789',
      vat_number: null, // blank optional text is stored as null
      invoice_number_prefix: 'US-',
      credit_note_number_prefix: 'CN-',
      next_invoice_number: 1,
      next_credit_note_number: 1,
      net_terms: 15,
      grace_period_hours: 24,
      logo: null,
      archived_at: null,
      bank_details: { account_holder: 'Tally Billing Inc.', bank_name: null, iban: null, bic: null, account_number: '000123456789', routing_number: '121000248' },
    });
    const list = (await h.request('GET', '/api/v1/invoicing-entities')).json().data;
    expect(list.map((e: { id: string; is_default: boolean }) => [e.id, e.is_default])).toEqual([[first.id, true], [second.id, false]]);
    expect((await h.request('GET', `/api/v1/invoicing-entities/${second.id}`)).json()).toEqual(second);

    const patched = await h.request('PATCH', `/api/v1/invoicing-entities/${second.id}`, {
      body: { bank_details: { iban: 'fr76 3000 6000 0112 3456 7890 189', bic: 'agrifrpp' }, registration_number: 'C1234567', legal_footer: 'Delaware corporation' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      bank_details: { iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP', account_holder: null, account_number: null },
      registration_number: 'C1234567',
      legal_footer: 'Delaware corporation',
      invoice_number_prefix: 'US-',
    });
    expect((await h.request('PATCH', `/api/v1/invoicing-entities/${second.id}`, { body: { bank_details: null, legal_footer: null } })).json())
      .toMatchObject({ bank_details: null, legal_footer: null });
  });

  it('stores a PNG logo given as a data URL, describes it, and removes it with null', async () => {
    const h = harness();
    const entity = await createEntity(h, { legal_name: 'Logo Ltd', country: 'GB' });
    const png = discPng(64, [200, 30, 30]);
    const res = await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { logo: dataUrl(png) } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().logo).toEqual({ content_type: 'image/png', size_bytes: png.length, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { legal_name: 'Logo Limited' } })).json().logo).toEqual(res.json().logo);
    expect((await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { logo: null } })).json().logo).toBeNull();
  });

  it('refuses invalid fields with a 400 that names the field, and writes nothing', async () => {
    const h = harness();
    const entity = await createEntity(h, { legal_name: 'Checks GmbH', country: 'DE' });
    const cases: [Record<string, unknown>, string][] = [
      [{ country: 'France' }, 'country'],
      [{ legal_name: '   ' }, 'legal_name'],
      [{ net_terms: 400 }, 'net_terms'],
      [{ grace_period_hours: -1 }, 'grace_period_hours'],
      [{ invoice_number_prefix: 'INV {x}' }, 'invoice_number_prefix'],
      [{ bank_details: { iban: 'FR7630006000011234567890188' } }, 'bank_details.iban'],
      [{ bank_details: { iban: 'FR7630006000011234567890189', bic: 'AGRI' } }, 'bank_details.bic'],
      [{ bank_details: { account_holder: 'Nobody' } }, 'bank_details needs an iban or an account_number'],
      [{ logo: 'https://example.com/logo.png' }, 'logo must be a data URL'],
      [{ logo: `data:image/png;base64,${Buffer.from('GIF89a not a png').toString('base64')}` }, 'logo: the image must be a PNG or a JPEG'],
      [{ logo: `data:image/jpeg;base64,${discPng(8, [0, 0, 0]).toString('base64')}` }, 'logo says image/jpeg but holds a image/png'],
      [{ logo: dataUrl(discPng(2001, [0, 0, 0])) }, 'logo: the image must be at most 2000 x 2000 pixels'],
      [{ is_default: 'yes' }, 'is_default'],
      [{ colour: 'red' }, 'colour'],
      [{ contact_email: 'billing at example.com' }, "contact_email must be an e-mail address, e.g. 'billing@example.com'"],
      [{ contact_phone: 'call us' }, "contact_phone must be a telephone number"],
      [{ peppol_endpoint_scheme: 'GLN', peppol_endpoint_id: '4035811991021' }, "peppol_endpoint_scheme must be a 4-digit Peppol EAS code, e.g. '0088'"],
      [{ peppol_endpoint_scheme: '0088', peppol_endpoint_id: '4035 8119' }, 'peppol_endpoint_id must be at most 50 characters without spaces'],
      [{ peppol_endpoint_id: '4035811991021' }, 'peppol_endpoint_scheme and peppol_endpoint_id go together'],
    ];
    for (const [body, field] of cases) {
      const res = await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body });
      expect([res.statusCode, res.json()], JSON.stringify(body)).toEqual([400, badRequest(field)]);
    }
    // a damaged PNG (one byte of its pixel data changed): refused before it can break a PDF
    const damaged = discPng(16, [0, 0, 0]);
    damaged.writeUInt8(damaged.readUInt8(damaged.length - 20) ^ 0xff, damaged.length - 20);
    expect((await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { logo: dataUrl(damaged) } })).json()).toEqual(badRequest('logo: the PNG'));
    expect((await h.request('GET', `/api/v1/invoicing-entities/${entity.id}`)).json()).toEqual(entity);

    const missing = await h.request('POST', '/api/v1/invoicing-entities', { body: { country: 'FR' } });
    expect([missing.statusCode, missing.json()]).toEqual([400, badRequest('legal_name')]);
    const noCountry = await h.request('POST', '/api/v1/invoicing-entities', { body: { legal_name: 'X' } });
    expect([noCountry.statusCode, noCountry.json()]).toEqual([400, badRequest('country')]);
    expect((await h.request('GET', '/api/v1/invoicing-entities?include_archived=true')).json().data.map((e: { legal_name: string }) => e.legal_name)).not.toContain('X');
  });

  it('stores the seller contact and the Peppol endpoint, returns them everywhere, and clears them with null', async () => {
    const h = harness();
    const contact = {
      contact_name: ' Accounts receivable ', contact_phone: '+49 (30) 123-4567', contact_email: 'billing@example.com',
      peppol_endpoint_scheme: '9930', peppol_endpoint_id: 'DE123456789',
    };
    const created = await createEntity(h, { legal_name: 'Kontakt GmbH', country: 'DE', ...contact });
    const stored = { ...contact, contact_name: 'Accounts receivable' };
    expect(created).toMatchObject(stored);
    expect((await h.request('GET', `/api/v1/invoicing-entities/${created.id}`)).json()).toMatchObject(stored);
    expect((await h.request('GET', '/api/v1/invoicing-entities')).json().data.find((e: { id: string }) => e.id === created.id)).toMatchObject(stored);
    // only one endpoint field changes: the pair stays whole
    expect((await h.request('PATCH', `/api/v1/invoicing-entities/${created.id}`, { body: { peppol_endpoint_scheme: '0204' } })).json()).toMatchObject({ peppol_endpoint_scheme: '0204', peppol_endpoint_id: 'DE123456789' });
    const cleared = await h.request('PATCH', `/api/v1/invoicing-entities/${created.id}`, {
      body: { contact_name: null, contact_phone: '', contact_email: null, peppol_endpoint_scheme: null, peppol_endpoint_id: null },
    });
    expect(cleared.json()).toMatchObject({ contact_name: null, contact_phone: null, contact_email: null, peppol_endpoint_scheme: null, peppol_endpoint_id: null });
    // an entity created without them has them null
    expect(await createEntity(h, { legal_name: 'Plain', country: 'FR' })).toMatchObject({ contact_name: null, peppol_endpoint_id: null });
  });

  it('hides other tenants\' entities (404) and refuses them on customers (400)', async () => {
    const h = harness();
    const entity = await createEntity(h, { legal_name: 'Mine SA', country: 'BE' });
    for (const [method, path] of [['GET', ''], ['PATCH', ''], ['POST', '/archive'], ['POST', '/unarchive']] as const) {
      const res = await h.request(method, `/api/v1/invoicing-entities/${entity.id}${path}`, { key: h.other.apiKey, ...(method === 'PATCH' ? { body: { legal_name: 'x' } } : {}) });
      expect(res.statusCode, `${method} ${path}`).toBe(404);
    }
    const res = await h.request('POST', '/api/v1/customers', { key: h.other.apiKey, body: { name: 'Other', currency: 'EUR', invoicing_entity_id: entity.id } });
    expect([res.statusCode, res.json()]).toEqual([400, { code: 'BAD_REQUEST', message: expect.stringMatching(/^invoicing_entity_id '.+' is not an invoicing entity of this tenant/) }]);
  });
});

describe('the default entity and archiving', () => {
  it('keeps exactly one default: switching it moves the flag, new customers get the new default, false is refused', async () => {
    const h = harness();
    const [oldDefault] = (await h.request('GET', '/api/v1/invoicing-entities')).json().data;
    const next = await createEntity(h, { legal_name: 'Next Default BV', country: 'NL' });
    const switched = await h.request('PATCH', `/api/v1/invoicing-entities/${next.id}`, { body: { is_default: true } });
    expect(switched.json().is_default).toBe(true);
    const list = (await h.request('GET', '/api/v1/invoicing-entities')).json().data;
    expect(list.filter((e: { is_default: boolean }) => e.is_default).map((e: { id: string }) => e.id)).toEqual([next.id]);
    expect(list[0].id).toBe(next.id);
    expect((await createCustomer(h, { name: 'Joins the default' }) as unknown as { invoicing_entity_id: string }).invoicing_entity_id).toBe(next.id);

    const refused = await h.request('PATCH', `/api/v1/invoicing-entities/${next.id}`, { body: { is_default: false } });
    expect([refused.statusCode, refused.json()]).toEqual([400, badRequest('is_default cannot be set to false')]);
    // created as the default: the switch happens in the same request
    const third = await createEntity(h, { legal_name: 'Third Oy', country: 'FI', is_default: true });
    expect(third.is_default).toBe(true);
    const defaults = (await h.request('GET', '/api/v1/invoicing-entities')).json().data.filter((e: { is_default: boolean }) => e.is_default);
    expect(defaults.map((e: { id: string }) => e.id)).toEqual([third.id]);
    // back to the first default for the other tests of this file
    await h.request('PATCH', `/api/v1/invoicing-entities/${oldDefault.id}`, { body: { is_default: true } });
  });

  it('switches the default atomically when several switches run at once: one default at the end, every request answered', async () => {
    const h = harness();
    const [original] = (await h.request('GET', '/api/v1/invoicing-entities')).json().data;
    const candidates = [
      await createEntity(h, { legal_name: 'Race A', country: 'FR' }),
      await createEntity(h, { legal_name: 'Race B', country: 'DE' }),
      await createEntity(h, { legal_name: 'Race C', country: 'ES' }),
    ];
    const answers = await Promise.all([
      ...candidates.map((entity) => h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { is_default: true } })),
      h.request('POST', '/api/v1/invoicing-entities', { body: { legal_name: 'Race D', country: 'IT', is_default: true } }),
      h.request('POST', '/api/v1/customers', { body: { name: 'During the race', currency: 'EUR' } }),
    ]);
    expect(answers.map((res) => res.statusCode)).toEqual([200, 200, 200, 201, 201]);
    const defaults = (await h.request('GET', '/api/v1/invoicing-entities')).json().data.filter((e: { is_default: boolean }) => e.is_default);
    expect(defaults).toHaveLength(1);
    await h.request('PATCH', `/api/v1/invoicing-entities/${original.id}`, { body: { is_default: true } });
  });

  it('refuses to archive the default or an entity with active customers (409), archives an empty one, which then takes no customers', async () => {
    const h = harness();
    const defaultEntity = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
    const notDefault = await h.request('POST', `/api/v1/invoicing-entities/${defaultEntity.id}/archive`);
    expect([notDefault.statusCode, notDefault.json()]).toEqual([409, { code: 'CONFLICT', message: expect.stringContaining('is the default entity; make another entity the default') }]);

    const branch = await createEntity(h, { legal_name: 'Branch SRL', country: 'IT' });
    const customer = await createCustomer(h, { name: 'Branch customer', invoicing_entity_id: branch.id }) as unknown as { id: string; invoicing_entity_id: string };
    expect(customer.invoicing_entity_id).toBe(branch.id);
    const busy = await h.request('POST', `/api/v1/invoicing-entities/${branch.id}/archive`);
    expect([busy.statusCode, busy.json()]).toEqual([409, { code: 'CONFLICT', message: expect.stringContaining('has 1 customer(s) that are not archived') }]);

    // move the customer to the default (null), then the entity can go
    const moved = await h.request('PATCH', `/api/v1/customers/${customer.id}`, { body: { invoicing_entity_id: null } });
    expect(moved.json().invoicing_entity_id).toBe(defaultEntity.id);
    const archived = await h.request('POST', `/api/v1/invoicing-entities/${branch.id}/archive`);
    expect(archived.statusCode, archived.body).toBe(200);
    expect(archived.json().archived_at).toBe(h.clock.now().toISOString());
    expect((await h.request('POST', `/api/v1/invoicing-entities/${branch.id}/archive`)).json()).toEqual(archived.json());
    expect((await h.request('GET', '/api/v1/invoicing-entities')).json().data.map((e: { id: string }) => e.id)).not.toContain(branch.id);
    expect((await h.request('GET', '/api/v1/invoicing-entities?include_archived=true')).json().data.map((e: { id: string }) => e.id)).toContain(branch.id);

    // an archived entity takes no customer, new or moved, and cannot become the default
    const onArchived = await h.request('POST', '/api/v1/customers', { body: { name: 'Late', currency: 'EUR', invoicing_entity_id: branch.id } });
    expect([onArchived.statusCode, onArchived.json()]).toEqual([400, badRequest(`invoicing_entity_id '${branch.id}' is archived`)]);
    const moveBack = await h.request('PUT', `/api/v1/customers/${customer.id}`, { body: { name: 'Branch customer', currency: 'EUR', invoicing_emails: [], custom_taxes: [], invoicing_entity_id: branch.id } });
    expect([moveBack.statusCode, moveBack.json()]).toEqual([400, badRequest('is archived')]);
    expect((await h.request('GET', `/api/v1/customers/${customer.id}`)).json().invoicing_entity_id).toBe(defaultEntity.id);
    const asDefault = await h.request('PATCH', `/api/v1/invoicing-entities/${branch.id}`, { body: { is_default: true } });
    expect([asDefault.statusCode, asDefault.json()]).toEqual([409, { code: 'CONFLICT', message: expect.stringContaining('is archived and cannot be the default') }]);
    // a PUT that leaves the entity out keeps it
    const put = await h.request('PUT', `/api/v1/customers/${customer.id}`, { body: { name: 'Branch customer 2', currency: 'EUR', invoicing_emails: [], custom_taxes: [] } });
    expect(put.json().invoicing_entity_id).toBe(defaultEntity.id);

    const restored = await h.request('POST', `/api/v1/invoicing-entities/${branch.id}/unarchive`);
    expect(restored.json().archived_at).toBeNull();
    expect((await h.request('PATCH', `/api/v1/customers/${customer.id}`, { body: { invoicing_entity_id: branch.id } })).json().invoicing_entity_id).toBe(branch.id);
  });

  it('keeps archived customers of an archived entity archived until the entity or the customer moves', async () => {
    const h = harness();
    const entity = await createEntity(h, { legal_name: 'Closing SAS', country: 'FR' });
    const customer = await createCustomer(h, { name: 'Leaving', invoicing_entity_id: entity.id });
    expect((await h.request('DELETE', `/api/v1/customers/${customer.id}`)).statusCode).toBe(204);
    expect((await h.request('POST', `/api/v1/invoicing-entities/${entity.id}/archive`)).statusCode).toBe(200);
    const unarchive = await h.request('POST', `/api/v1/customers/${customer.id}/unarchive`);
    expect([unarchive.statusCode, unarchive.json()]).toEqual([400, { message: expect.stringContaining(`invoicing_entity_id '${entity.id}' is archived`) }]);
    expect((await h.request('PATCH', `/api/v1/customers/${customer.id}`, { body: { invoicing_entity_id: null } })).statusCode).toBe(200);
    expect((await h.request('POST', `/api/v1/customers/${customer.id}/unarchive`)).statusCode).toBe(200);
  });
});

describe('numbering per entity', () => {
  it('numbers the invoices of each entity from its own sequence and prefix; invoices are issued by the customer\'s entity', async () => {
    const h = harness();
    const france = await createEntity(h, { legal_name: 'Numbers SAS', country: 'FR', invoice_number_prefix: 'FR-', credit_note_number_prefix: 'FRCN-' });
    const usa = await createEntity(h, { legal_name: 'Numbers Inc.', country: 'US', invoice_number_prefix: 'US-' });
    const frCustomers = [await createCustomer(h, { name: 'Client A', invoicing_entity_id: france.id }), await createCustomer(h, { name: 'Client B', invoicing_entity_id: france.id })];
    const usCustomer = await createCustomer(h, { name: 'Client US', currency: 'USD', invoicing_entity_id: usa.id });

    const drafts = [
      await createDraft(h, frCustomers[0]!.id),
      await createDraft(h, usCustomer.id, { currency: 'USD' }),
      await createDraft(h, frCustomers[1]!.id),
      await createDraft(h, usCustomer.id, { currency: 'USD', invoiceDate: '2026-03-02' }),
      await createDraft(h, frCustomers[0]!.id, { invoiceDate: '2026-03-03' }),
    ];
    const finalized = [];
    for (const draft of drafts) {
      const res = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
      expect(res.statusCode, res.body).toBe(200);
      finalized.push(res.json());
    }
    expect(finalized.map((i) => [i.invoicing_entity_id, i.invoice_number, i.reference])).toEqual([
      [france.id, 'FR-0001', 'FR0001'],
      [usa.id, 'US-0001', 'US0001'],
      [france.id, 'FR-0002', 'FR0002'],
      [usa.id, 'US-0002', 'US0002'],
      [france.id, 'FR-0003', 'FR0003'],
    ]);
    expect(finalized.map((i) => i.seller_details.legal_name)).toEqual(['Numbers SAS', 'Numbers Inc.', 'Numbers SAS', 'Numbers Inc.', 'Numbers SAS']);
    expect((await h.request('GET', `/api/v1/invoicing-entities/${france.id}`)).json().next_invoice_number).toBe(4);
    expect((await h.request('GET', `/api/v1/invoicing-entities/${usa.id}`)).json().next_invoice_number).toBe(3);

    // credit notes count per entity too, with the entity's own prefix
    const note = await h.request('POST', '/api/v1/credit-notes', { body: { invoice_id: finalized[0].id, reason: 'Goodwill', credit_type: 'CREDIT_TO_BALANCE' } });
    expect(note.statusCode, note.body).toBe(201);
    const finalizedNote = await h.request('POST', `/api/v1/credit-notes/${note.json().id}/finalize`);
    expect(finalizedNote.json().credit_note_number).toBe('FRCN-0001');

    // a customer moved to another entity: its next invoice comes from the new entity's sequence
    await h.request('PATCH', `/api/v1/customers/${frCustomers[1]!.id}`, { body: { invoicing_entity_id: usa.id } });
    const movedDraft = await createDraft(h, frCustomers[1]!.id, { invoiceDate: '2026-03-04' });
    expect((await h.request('POST', `/api/v1/invoices/${movedDraft.invoice.id}/finalize`)).json()).toMatchObject({ invoicing_entity_id: usa.id, invoice_number: 'US-0003' });
  });
});
