import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { browserAvailable, serveToBrowser } from '../harness/browser.js';
import { createCustomer, createDraft } from '../http/invoices-support.js';

/**
 * The sandbox's authentication step on the invoice pay page, in Debian's Chromium with
 * JavaScript off: the "needs authentication" card leads to a page with approve and fail buttons
 * (as Stripe's test 3-D Secure page), which completes or fails the same payment transaction.
 */
const harness = useHarness();
const served = serveToBrowser(harness);
const screenshots = process.env.SCREENSHOT_DIR ?? mkdtempSync(path.join(tmpdir(), 'billing-screenshots-'));

async function payableInvoice(): Promise<Record<string, string>> {
  const h = harness();
  const customer = await createCustomer(h);
  const draft = await createDraft(h, customer.id);
  expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`)).statusCode).toBe(200);
  await h.drainJobs();
  return fetch(`${served.baseUrl}/api/v1/invoices/${draft.invoice.id}`, { headers: { authorization: `Bearer ${h.tenant.apiKey}` } }).then((r) => r.json()) as Promise<Record<string, string>>;
}

const transactions = async (invoiceId: string) => (await harness().request('GET', `/api/v1/invoices/${invoiceId}/payment-transactions`)).json().data as Record<string, string>[];

describe.skipIf(!browserAvailable)('pay page authentication step (sandbox)', () => {
  it('fails the authentication (nothing taken), then completes it for the same card and the invoice is paid', async () => {
    console.log(`pay page authentication screenshots: ${screenshots}`);
    const invoice = await payableInvoice();
    const context = await served.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(invoice.payment_url!);

    await page.getByLabel('Card number').fill('4000 0025 0000 3155');
    await page.getByRole('button', { name: 'Pay 144.00 EUR' }).click();
    expect(page.url()).toMatch(/\/authenticate\/ptx_/);
    expect(await page.getByRole('heading', { name: 'Authentication by your bank' }).isVisible()).toBe(true);
    expect(await page.locator('dl.facts').innerText()).toContain('144.00 EUR');
    expect(await page.locator('dl.facts').innerText()).toContain('Visa ending 3155');
    await page.screenshot({ path: `${screenshots}/pay-page-authentication.png`, fullPage: true });
    const [first] = await transactions(invoice.id!);
    expect(first).toMatchObject({ status: 'REQUIRES_ACTION', error: 'authentication_required' });

    await page.getByRole('button', { name: 'Fail authentication' }).click();
    expect(await page.getByRole('alert').innerText()).toContain('The authentication was not completed. No money was taken');
    expect(await transactions(invoice.id!)).toEqual([expect.objectContaining({ id: first!.id, status: 'FAILED', error: 'payment_intent_authentication_failure' })]);
    await page.screenshot({ path: `${screenshots}/pay-page-authentication-failed.png`, fullPage: true });

    // the card stayed saved; paying with it asks again, and this time the customer approves
    await page.getByRole('radio', { name: /Visa ending 3155/ }).check();
    await page.getByRole('button', { name: 'Pay 144.00 EUR' }).click();
    const stepUrl = page.url();
    await page.getByRole('button', { name: 'Complete authentication' }).click();
    expect(await page.getByRole('status').innerText()).toContain('This invoice is paid');
    await page.screenshot({ path: `${screenshots}/pay-page-authentication-paid.png`, fullPage: true });

    const after = await transactions(invoice.id!);
    expect(after.map((t) => t.status).sort()).toEqual(['FAILED', 'SUCCEEDED']);
    const second = after.find((t) => t.status === 'SUCCEEDED')!;
    // one payment recorded on the invoice, the one the authentication completed
    const paid = (await harness().request('GET', `/api/v1/invoices/${invoice.id}`)).json();
    expect(paid).toMatchObject({ payment_status: 'PAID', amount_paid: '144.00' });
    expect(paid.transactions).toEqual([expect.objectContaining({ status: 'SETTLED', amount: '144.00', provider_transaction_id: second.provider_transaction_id })]);

    // the step page again (back button): nothing waits any more, it leads to the paid page
    await page.goto(stepUrl);
    expect(await page.getByRole('status').innerText()).toContain('This invoice is paid');
    await context.close();
  }, 60_000);

  it('completes a finalization charge that needed authentication from the pay link (the same transaction, no second charge)', async () => {
    const h = harness();
    const customer = await createCustomer(h);
    expect((await h.request('POST', `/api/v1/customers/${customer.id}/payment-methods`, { body: { card_number: '4000002500003155' } })).statusCode).toBe(201);
    const draft = await createDraft(h, customer.id);
    await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`);
    for (let round = 0; round < 4; round++) await h.drainJobs();
    const [charge] = await transactions(draft.invoice.id);
    expect(charge).toMatchObject({ occasion: 'FINALIZATION', status: 'REQUIRES_ACTION' });
    const payUrl = (await h.request('GET', `/api/v1/invoices/${draft.invoice.id}`)).json().payment_url as string;

    const context = await served.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(payUrl.replace(/^http:\/\/localhost:80/, served.baseUrl));
    await page.getByRole('link', { name: 'Complete the authentication' }).click();
    const stepUrl = page.url();
    const csrf = await page.locator('input[name="_csrf"]').first().getAttribute('value');
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    await page.getByRole('button', { name: 'Complete authentication' }).click();
    expect(await page.getByRole('status').innerText()).toContain('This invoice is paid');
    await context.close();

    // the same form submitted again (a double click): the transaction is settled, nothing changes
    const again = await fetch(stepUrl, {
      method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: csrf!, outcome: 'approve' }).toString(),
    });
    expect(again.status).toBe(303);

    expect(await transactions(draft.invoice.id)).toEqual([expect.objectContaining({ id: charge!.id, status: 'SUCCEEDED', occasion: 'FINALIZATION' })]);
    expect((await h.request('GET', `/api/v1/invoices/${draft.invoice.id}`)).json()).toMatchObject({ payment_status: 'PAID', amount_paid: '144.00' });
  }, 60_000);
});
