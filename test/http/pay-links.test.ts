// The invoice pay link where the customer finds it (docs/payments.md, "Invoice pay page"): on the
// accounting PDF while the invoice is payable, in the customer portal as a Pay link, and revoked
// through the API (the old link dies, the invoice gets a new one).
import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../harness/app.js';
import { pdfText } from '../harness/pdf.js';
import { createCustomer, createDraft } from './invoices-support.js';

const harness = useHarness();

const tokenOf = (url: string) => /\/pay\/(ip_[A-Za-z0-9_-]{43})$/.exec(url)?.[1];

async function finalized(h: Harness, customerId: string): Promise<Record<string, string>> {
  const draft = await createDraft(h, customerId);
  const res = await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function pdfTextOf(h: Harness, invoiceId: string): Promise<string> {
  const res = await h.request('GET', `/api/v1/invoices/${invoiceId}/download`);
  expect(res.statusCode).toBe(200);
  return pdfText(res.rawPayload);
}

async function portalPage(h: Harness, customerId: string): Promise<string> {
  const token = (await h.request('POST', `/api/v1/customers/${customerId}/portal-token`, { body: {} })).json().token as string;
  const res = await h.request('GET', `/portal/customer?token=${token}`, { key: null });
  expect(res.statusCode).toBe(200);
  return res.body;
}

describe('invoice pay link on the PDF', () => {
  it('prints "Pay online" with the invoice\'s own link while the invoice is payable', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const invoice = await finalized(h, customer.id);
    const text = await pdfTextOf(h, invoice.id!);
    const line = text.split('\n').find((l) => l.startsWith('Pay online:'));
    expect(line, text).toBeDefined();
    // the same token as the API's payment_url (the PDF is rendered without a request: PUBLIC_BASE_URL, else localhost:3000)
    expect(line).toBe(`Pay online: http://localhost:3000/pay/${tokenOf(invoice.payment_url!)}`);
  });

  it('prints no pay link on a draft preview nor on an invoice already paid when its PDF is rendered', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const draft = await createDraft(h, customer.id);
    expect(await pdfTextOf(h, draft.invoice.id)).not.toContain('Pay online');
    const invoice = await finalized(h, customer.id);
    expect((await h.request('POST', `/api/v1/invoices/${invoice.id}/mark-paid`, { body: {} })).statusCode).toBe(200);
    const text = await pdfTextOf(h, invoice.id!);
    expect(text).toContain('Paid on');
    expect(text).not.toContain('Pay online');
  });
});

describe('revoking a pay link', () => {
  it('kills the old link and answers the new one, which the invoice shows from then on', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const invoice = await finalized(h, customer.id);
    const old = invoice.payment_url!;
    expect((await h.request('GET', new URL(old).pathname, { key: null })).statusCode).toBe(200);

    const res = await h.request('POST', `/api/v1/invoices/${invoice.id}/payment-link/revoke`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ invoice_id: invoice.id, revoked: true, payment_url: expect.stringMatching(/^http:\/\/localhost:80\/pay\/ip_/) });
    expect(body.payment_url).not.toBe(old);
    const dead = await h.request('GET', new URL(old).pathname, { key: null });
    expect(dead.statusCode).toBe(404);
    expect(dead.body).toContain('invalid or was replaced');
    expect((await h.request('GET', new URL(body.payment_url).pathname, { key: null })).statusCode).toBe(200);
    expect((await h.request('GET', `/api/v1/invoices/${invoice.id}`)).json().payment_url).toBe(body.payment_url);
  });

  it('revokes the link of an invoice no longer payable without issuing another', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const invoice = await finalized(h, customer.id);
    await h.request('POST', `/api/v1/invoices/${invoice.id}/mark-paid`, { body: {} });
    const res = await h.request('POST', `/api/v1/invoices/${invoice.id}/payment-link/revoke`);
    expect(res.json()).toEqual({ invoice_id: invoice.id, revoked: true, payment_url: null });
    expect((await h.request('GET', new URL(invoice.payment_url!).pathname, { key: null })).statusCode).toBe(404);
    // nothing live any more: a second revoke says so
    expect((await h.request('POST', `/api/v1/invoices/${invoice.id}/payment-link/revoke`)).json()).toMatchObject({ revoked: false, payment_url: null });
  });

  it('answers 404 for an unknown invoice and another tenant\'s, and 401 without a key', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const invoice = await finalized(h, customer.id);
    expect((await h.request('POST', '/api/v1/invoices/inv_01KPB3S2J8M6C4QZ9W1XK8D5TB/payment-link/revoke')).statusCode).toBe(404);
    expect((await h.request('POST', `/api/v1/invoices/${invoice.id}/payment-link/revoke`, { key: h.other.apiKey })).statusCode).toBe(404);
    expect((await h.request('POST', `/api/v1/invoices/${invoice.id}/payment-link/revoke`, { key: null })).statusCode).toBe(401);
    // the refused requests left the link alive
    expect((await h.request('GET', new URL(invoice.payment_url!).pathname, { key: null })).statusCode).toBe(200);
  });
});

describe('pay link in the customer portal', () => {
  it('offers Pay on each unpaid invoice with its pay link, and none on a paid one', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    const unpaid = await finalized(h, customer.id);
    const paid = await finalized(h, customer.id);
    await h.request('POST', `/api/v1/invoices/${paid.id}/mark-paid`, { body: {} });
    const html = await portalPage(h, customer.id);
    const links = [...html.matchAll(/<a class="button" href="([^"]+)">Pay<span class="visually-hidden"> invoice ([^<]+)<\/span><\/a>/g)].map((m) => [m[2], tokenOf(m[1]!)]);
    expect(links).toEqual([[unpaid.invoice_number, tokenOf(unpaid.payment_url!)]]);
  });
});
