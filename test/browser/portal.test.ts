import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { browserAvailable, serveToBrowser } from '../harness/browser.js';
import { createDraft } from '../http/invoices-support.js';

/**
 * The customer portal page in Debian's Chromium, on the running server: a customer follows the
 * portal_url the merchant got from the API and reads its usage and invoices. No JavaScript runs.
 */
const harness = useHarness();
const screenshots = process.env.SCREENSHOT_DIR ?? mkdtempSync(path.join(tmpdir(), 'billing-screenshots-'));
const served = serveToBrowser(harness);

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${served.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${harness().tenant.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await res.json();
  expect(res.status, JSON.stringify(json)).toBeLessThan(300);
  return json;
}

describe.skipIf(!browserAvailable)('customer portal page in a browser', () => {
  it('shows the usage of this period and an invoice row with its PDF link', async () => {
    const h = harness();
    const family = await api('POST', '/api/v1/product_families', { name: 'Storage' });
    const metric = await api('POST', '/api/v1/metrics', { name: 'GB stored', code: 'gb_stored', aggregation_type: 'SUM', aggregation_key: 'gb', product_family_id: family.id });
    const usage = await api('POST', '/api/v1/products', { name: 'Storage', product_family_id: family.id, fee_structure: { type: 'USAGE', metric_id: metric.id, model: 'PER_UNIT' } });
    const plan = await api('POST', '/api/v1/plans', {
      name: 'Metered', currency: 'EUR', product_family_id: family.id, status: 'ACTIVE',
      components: [{ name: 'Storage', product_id: usage.id, fee: { pricing: { rate: '0.50' } } }],
    });
    const customer = await api('POST', '/api/v1/customers', { name: 'Acme', currency: 'EUR' });
    await api('POST', '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.id, start_date: '2026-03-01' });
    await api('POST', '/api/v1/events/ingest', {
      allow_backfilling: true,
      events: [
        { event_id: 'b1', code: 'gb_stored', customer_id: customer.id, timestamp: '2026-03-02T00:00:00Z', properties: { gb: '12.5' } },
        { event_id: 'b2', code: 'gb_stored', customer_id: customer.id, timestamp: '2026-03-10T00:00:00Z', properties: { gb: '7' } },
      ],
    });
    const draft = await createDraft(h, customer.id);
    const invoice = await api('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    const { portal_url: portalUrl } = await api('POST', `/api/v1/customers/${customer.id}/portal-token`, {});
    expect(portalUrl.startsWith(`${served.baseUrl}/portal/customer?token=`)).toBe(true);

    const context = await served.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const response = await page.goto(portalUrl);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe('Billing portal — Acme');

    const usageRow = page.getByRole('region', { name: 'Usage this period' }).getByRole('row').filter({ hasText: 'GB stored' });
    expect(await usageRow.getByRole('cell').allInnerTexts()).toEqual(['Metered', 'GB stored', '19.5', '2026-03-01 to 2026-04-01 (exclusive)']);

    const invoiceRow = page.getByRole('region', { name: 'Invoices' }).getByRole('row').filter({ hasText: invoice.invoice_number });
    const cells = await invoiceRow.getByRole('cell').allInnerTexts();
    expect(cells.slice(0, 6)).toEqual([invoice.invoice_number, '2026-03-01', invoice.due_date, '144.00 EUR', '144.00 EUR', 'UNPAID']);
    const link = invoiceRow.getByRole('link', { name: `Download PDF of invoice ${invoice.invoice_number}` });
    const href = await link.getAttribute('href');
    const pdf = await fetch(new URL(href!, served.baseUrl));
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    await context.close();

    // A wrong link shows the error page, not a blank one.
    const errorPage = await served.browser.newPage();
    const denied = await errorPage.goto(`${served.baseUrl}/portal/customer?token=pt_wrong`);
    expect(denied?.status()).toBe(401);
    expect(await errorPage.getByRole('alert').innerText()).toContain('This portal link is invalid, has expired or was revoked.');
    await errorPage.close();
  }, 60_000);

  it('links the structured e-invoice beside the PDF when the invoicing entity opted in', async () => {
    const h = harness();
    const entity = await api('POST', '/api/v1/invoicing-entities', {
      legal_name: 'Tally Billing SAS', country: 'FR', vat_number: 'FR83404833048', address_line1: '8 avenue des Ternes', city: 'Paris', zip_code: '75017',
      bank_details: { account_holder: 'Tally Billing SAS', iban: 'FR7630006000011234567890189' }, e_invoicing_format: 'FACTURX',
    });
    const customer = await api('POST', '/api/v1/customers', { name: 'Acme SARL', currency: 'EUR', invoicing_entity_id: entity.id, billing_address: { line1: '1 rue X', city: 'Paris', zip_code: '75001', country: 'FR' } });
    const draft = await createDraft(h, customer.id);
    const invoice = await api('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    await h.drainJobs();
    const { portal_url: portalUrl } = await api('POST', `/api/v1/customers/${customer.id}/portal-token`, {});

    const context = await served.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    expect((await page.goto(portalUrl))?.status()).toBe(200);
    const invoiceRow = page.getByRole('region', { name: 'Invoices' }).getByRole('row').filter({ hasText: invoice.invoice_number });
    const xmlLink = invoiceRow.getByRole('link', { name: `E-invoice (XML) of invoice ${invoice.invoice_number}` });
    const xml = await fetch(new URL((await xmlLink.getAttribute('href'))!, served.baseUrl));
    expect(xml.status).toBe(200);
    expect(xml.headers.get('content-disposition')).toBe(`attachment; filename="${invoice.invoice_number}-factur-x.xml"`);
    expect(await xml.text()).toContain('CrossIndustryInvoice');
    await page.screenshot({ path: `${screenshots}/portal-e-invoice.png`, fullPage: true });
    await context.close();
  }, 60_000);
});
