import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { browserAvailable, serveToBrowser } from '../harness/browser.js';
import { createCustomer, createDraft } from '../http/invoices-support.js';

/**
 * The customer portal's payment methods and Pay button in Debian's Chromium, JavaScript off, on a
 * sandbox tenant: add cards with the sandbox card form, make one the default, remove one, see a
 * refused number's message, and follow Pay to the invoice's pay page.
 */
const harness = useHarness();
const served = serveToBrowser(harness);
const screenshots = process.env.SCREENSHOT_DIR ?? mkdtempSync(path.join(tmpdir(), 'billing-screenshots-'));

describe.skipIf(!browserAvailable)('customer portal payment methods in a browser (sandbox)', () => {
  it('adds, makes default and removes cards through the payments service, and Pay leads to the pay page', async () => {
    console.log(`portal payment methods screenshots: ${screenshots}`);
    const h = harness();
    const customer = await createCustomer(h, { name: 'Portal Payer' });
    const draft = await createDraft(h, customer.id);
    const invoice = (await h.request('POST', `/api/v1/invoices/${draft.invoice.id}/finalize`)).json();
    const token = (await h.request('POST', `/api/v1/customers/${customer.id}/portal-token`, { body: {} })).json().token as string;
    const apiMethods = async () => (await h.request('GET', `/api/v1/customers/${customer.id}/payment-methods`)).json().data as { id: string; card_last4: string; is_default: boolean }[];

    const context = await served.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    expect((await page.goto(`${served.baseUrl}/portal/customer?token=${token}`))?.status()).toBe(200);
    const methods = page.getByRole('region', { name: 'Payment methods' });
    expect(await methods.innerText()).toContain('No saved payment methods.');

    // a number the sandbox refuses: the page says why, nothing is saved
    await methods.getByLabel('Card number').fill('4111 1111 1111 1111');
    await methods.getByRole('button', { name: 'Save card' }).click();
    expect(await page.getByRole('alert').innerText()).toContain('the sandbox accepts only its test cards');
    expect(await apiMethods()).toEqual([]);

    await methods.getByLabel('Card number').fill('4242 4242 4242 4242');
    await methods.getByRole('button', { name: 'Save card' }).click();
    expect(await page.getByRole('status').innerText()).toBe('Your payment method was saved.');
    await methods.getByLabel('Card number').fill('5555 5555 5555 4444');
    await methods.getByRole('button', { name: 'Save card' }).click();
    /** Each saved method as "label | Default" or "label | Make default". */
    const rows = async () => {
      const out: string[] = [];
      for (const row of (await methods.getByRole('row').all()).slice(1)) {
        const [label, isDefault] = await row.getByRole('cell').allInnerTexts();
        out.push(`${label} | ${isDefault!.startsWith('Default') ? 'Default' : 'Make default'}`);
      }
      // the service clock stands still in tests, so two methods saved in one instant have no order: compare sorted
      return out.sort();
    };
    // the first card saved became the default (the customer had none); the second did not
    expect(await rows()).toEqual([
      expect.stringMatching(/^Mastercard ending 4444, expires 12\/\d{4} \| Make default$/),
      expect.stringMatching(/^Visa ending 4242, expires 12\/\d{4} \| Default$/),
    ]);
    await page.screenshot({ path: `${screenshots}/portal-payment-methods.png`, fullPage: true });

    await methods.getByRole('button', { name: /Make default.*Mastercard ending 4444/ }).click();
    expect(await page.getByRole('status').innerText()).toBe('Your default payment method was changed.');
    await methods.getByRole('button', { name: /Remove.*Visa ending 4242/ }).click();
    expect(await page.getByRole('status').innerText()).toBe('The payment method was removed.');
    expect(await rows()).toEqual([expect.stringMatching(/^Mastercard ending 4444, expires 12\/\d{4} \| Default$/)]);
    // the API sees what the portal did: the same service and tables
    expect(await apiMethods()).toEqual([expect.objectContaining({ card_last4: '4444', is_default: true })]);
    await page.screenshot({ path: `${screenshots}/portal-payment-methods-after.png`, fullPage: true });

    // Pay on the unpaid invoice opens its pay page, where the saved card is offered
    const invoiceRow = page.getByRole('region', { name: 'Invoices' }).getByRole('row').filter({ hasText: invoice.invoice_number });
    await invoiceRow.getByRole('link', { name: `Pay invoice ${invoice.invoice_number}` }).click();
    expect(page.url()).toMatch(/\/pay\/ip_[A-Za-z0-9_-]{43}$/);
    expect(await page.getByRole('radio', { name: /Mastercard ending 4444/ }).isChecked()).toBe(true);
    await page.screenshot({ path: `${screenshots}/portal-pay.png`, fullPage: true });
    await context.close();
  }, 60_000);
});
