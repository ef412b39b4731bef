import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { browserAvailable, serveToBrowser } from '../harness/browser.js';
import { createCustomer, createDraft } from '../http/invoices-support.js';

/**
 * The hosted invoice pay page in Debian's Chromium, JavaScript off (the sandbox form needs none):
 * a customer follows the invoice's payment_url, a declined card shows its message, a good card
 * pays. Screenshots go to SCREENSHOT_DIR, or to a fresh folder of the run (its path is logged).
 */
const harness = useHarness();
const served = serveToBrowser(harness);
const screenshots = process.env.SCREENSHOT_DIR ?? mkdtempSync(path.join(tmpdir(), 'billing-screenshots-'));

describe.skipIf(!browserAvailable)('invoice pay page in a browser (sandbox)', () => {
  it('shows the invoice, shows a decline, then pays with a good card and shows it paid', async () => {
    console.log(`pay page screenshots: ${screenshots}`);
    const h = harness();
    const customer = await createCustomer(h);
    const draft = await createDraft(h, customer.id);
    expect((await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`)).statusCode).toBe(200);
    await h.drainJobs();
    const invoice = (await fetch(`${served.baseUrl}/api/v1/invoices/${draft.invoice.id}`, { headers: { authorization: `Bearer ${h.tenant.apiKey}` } }).then((r) => r.json())) as Record<string, string>;
    expect(invoice.payment_url).toMatch(new RegExp(`^${served.baseUrl}/pay/ip_[A-Za-z0-9_-]{43}$`));
    expect(invoice.payment_url).not.toContain(invoice.id);

    const context = await served.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    expect((await page.goto(invoice.payment_url!))?.status()).toBe(200);
    expect(await page.title()).toBe(`Invoice ${invoice.invoice_number} from ${(await page.locator('dl.facts dd').first().innerText())}`);
    const facts = await page.locator('dl.facts').innerText();
    expect(facts).toContain(invoice.invoice_number);
    expect(facts).toContain('144.00 EUR');
    expect(facts).toContain(invoice.due_date);
    const pdfHref = await page.getByRole('link', { name: 'Download the invoice (PDF)' }).getAttribute('href');
    const pdf = await fetch(new URL(pdfHref!, served.baseUrl));
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    await page.screenshot({ path: `${screenshots}/pay-page.png`, fullPage: true });

    // a declined card: its message, nothing paid
    await page.getByLabel('Card number').fill('4000 0000 0000 0002');
    await page.getByRole('button', { name: 'Pay 144.00 EUR' }).click();
    expect(await page.getByRole('alert').innerText()).toContain('Your card was declined.');
    await page.screenshot({ path: `${screenshots}/pay-page-declined.png`, fullPage: true });

    // a new, good card pays; the page then says paid and offers no form
    await page.getByRole('radio', { name: 'A new card' }).check();
    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByRole('button', { name: 'Pay 144.00 EUR' }).click();
    expect(await page.getByRole('status').innerText()).toContain('This invoice is paid');
    expect(await page.getByRole('button').count()).toBe(0);
    await page.screenshot({ path: `${screenshots}/pay-page-paid.png`, fullPage: true });
    await context.close();

    const paid = (await h.request('GET', `/api/v1/invoices/${invoice.id}`)).json();
    expect(paid).toMatchObject({ payment_status: 'PAID', amount_paid: '144.00', payment_url: null });
    const attempts = (await h.request('GET', `/api/v1/invoices/${invoice.id}/payment-transactions`)).json().data;
    // the service clock stands still in tests, so the two attempts' order is not asserted
    expect(attempts.map((a: { status: string }) => a.status).sort()).toEqual(['FAILED', 'SUCCEEDED']);
  }, 60_000);
});
