// The seller a draft shows is the invoicing entity as it is now, until finalization freezes it
// (issue 15): changing the entity refreshes its drafts (seller details and tax together), and
// finalization refreshes them once more through the same refresher.
import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { pdfText } from '../harness/pdf.js';
import { seedPlan } from '../http/subscription-fixtures.js';
import { createDraft } from '../http/invoices-support.js';
import { invoicesOf } from './billing-support.js';

const harness = useHarness();
const run = async (h: Harness) => h.service.tasks['billing.run']!({ once: true });

async function download(h: Harness, invoiceId: string): Promise<{ bytes: Buffer; text: string }> {
  const res = await h.request('GET', `/api/v1/invoices/${invoiceId}/download`);
  expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
  return { bytes: res.rawPayload, text: await pdfText(res.rawPayload) };
}

describe('seller on drafts', () => {
  it('shows the entity as it is now on drafts (seller and tax refreshed together) and freezes it at finalization', async () => {
    const h = harness();
    h.clock.set('2026-01-01T09:00:00.000Z');
    const entity = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
    expect(entity).toMatchObject({ legal_name: 'Org A', country: 'US', vat_number: null });
    const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    const customer = (await h.request('POST', '/api/v1/customers', {
      body: { name: 'Client SARL', currency: 'EUR', billing_address: { line1: '2 rue X', city: 'Lyon', zip_code: '69001', country: 'FR' } },
    })).json();
    const sub = await h.request('POST', '/api/v1/subscriptions', { body: { customer_id_or_alias: customer.id, plan_version_id: plan.versionId, start_date: '2026-01-01', billing_day_anchor: 1 } });
    expect(sub.statusCode, sub.body).toBe(201);
    await run(h);
    const [draft] = await invoicesOf(h, sub.json().id);
    // a US seller and a French buyer: export, no tax
    expect(draft).toMatchObject({ status: 'DRAFT', subtotal: '59.00', tax_amount: '0.00', total: '59.00', seller_details: { legal_name: 'Org A', vat_number: null, address: { country: 'US' } } });
    const oneOff = await createDraft(h, customer.id, { invoiceType: 'ONE_OFF', invoiceDate: '2026-01-01' });
    const before = await download(h, draft!.id);
    expect(before.text).toContain('Org A Client SARL');
    expect(before.text).toContain('United States');
    expect(before.text).toContain('Export: the customer is outside the seller\'s tax territory, no VAT is charged (zero-rated).');

    const patched = await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, {
      body: { legal_name: 'Seller SAS', country: 'FR', vat_number: 'FR83404833048', address_line1: '8 avenue des Ternes', city: 'Paris', zip_code: '75017' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const sellerNow = {
      id: entity.id, legal_name: 'Seller SAS', vat_number: 'FR83404833048',
      address: { line1: '8 avenue des Ternes', line2: null, city: 'Paris', zip_code: '75017', state: null, country: 'FR' },
    };
    // the draft follows at once: the new seller, and French VAT for a French seller and buyer
    const refreshed = (await h.request('GET', `/api/v1/invoices/${draft!.id}`)).json();
    expect(refreshed).toMatchObject({ status: 'DRAFT', subtotal: '59.00', tax_amount: '11.80', total: '70.80', seller_details: sellerNow });
    expect(refreshed.tax_breakdown).toEqual([{ name: 'VAT 20% (FR)', tax_rate: '0.2', taxable_amount: '59.00', tax_amount: '11.80', exemption_type: null }]);
    // a one-off draft is not recomputed, but shows its seller as it is now too
    expect((await h.request('GET', `/api/v1/invoices/${oneOff.invoice.id}`)).json().seller_details).toMatchObject(sellerNow);
    const preview = await download(h, draft!.id);
    expect(preview.text).toContain('Draft: not issued yet');
    expect(preview.text).toContain('Seller SAS');
    expect(preview.text).toContain('VAT number: FR83404833048');
    expect(preview.text).not.toContain('Org A');
    expect(preview.text).not.toContain('United States');

    const finalized = await h.request('POST', `/api/v1/invoices/${draft!.id}/finalize`);
    expect(finalized.json()).toMatchObject({ status: 'FINALIZED', total: '70.80', seller_details: sellerNow });
    await h.drainJobs();
    const issued = await download(h, draft!.id);
    expect(issued.text).toMatch(/FROM BILL TO\nSeller SAS Client SARL\n8 avenue des Ternes 2 rue X\n75017 Paris 69001 Lyon\nFrance France\nVAT number: FR83404833048/);
    expect(issued.text).toContain('VAT 20% (FR) on 59.00 EUR 11.80 EUR');

    // finalized: later changes of the entity leave the invoice and its PDF as they were
    await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { legal_name: 'Renamed SAS', vat_number: null } });
    expect((await h.request('GET', `/api/v1/invoices/${draft!.id}`)).json().seller_details).toMatchObject(sellerNow);
    expect((await download(h, draft!.id)).bytes.equals(issued.bytes)).toBe(true);
    expect((await h.request('GET', `/api/v1/invoices/${oneOff.invoice.id}`)).json().seller_details).toMatchObject({ legal_name: 'Renamed SAS', vat_number: null });
  });

  it('finalization refreshes the seller on the same path as the tax, even for a draft that missed the entity change', async () => {
    const h = harness();
    const entity = (await h.request('GET', '/api/v1/invoicing-entities')).json().data[0];
    const customer = (await h.request('POST', '/api/v1/customers', { body: { name: 'Stale Co', currency: 'EUR' } })).json();
    const draft = await createDraft(h, customer.id, { invoiceType: 'ONE_OFF', invoiceDate: '2026-03-01' });
    await h.request('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { body: { legal_name: 'Current Name SAS', vat_number: 'FR40303265045' } });
    // as if the draft had been locked by a finalizer while the entity changed: it still holds the old seller
    await h.db.pool.query(`UPDATE invoices SET seller_details = jsonb_set(seller_details, '{legal_name}', '"Old Name"') WHERE id = $1`, [draft.invoice.id]);
    expect((await h.request('GET', `/api/v1/invoices/${draft.invoice.id}`)).json().seller_details.legal_name).toBe('Old Name');
    const finalized = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    expect(finalized.json().seller_details).toMatchObject({ legal_name: 'Current Name SAS', vat_number: 'FR40303265045' });
    await h.drainJobs();
    const text = (await download(h, draft.invoice.id)).text;
    expect(text).toContain('Current Name SAS');
    expect(text).not.toContain('Old Name');
  });
});
