import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { browserAvailable, serveToBrowser, seriousViolations } from '../harness/browser.js';

/**
 * The dashboard's Invoices and Credit notes screens in Debian's Chromium (issue 18): an invoice
 * of a French customer of a French seller (20 % VAT) is made by the billing run through the API
 * with the same session; in the dashboard it is finalized, its PDF is seen in the page and
 * downloaded, a payment is recorded (first refused under the amount field), a credit note is
 * issued for one line with its tax shown before it is finalized, and both lists show them.
 * axe-core finds no serious or critical violation on each screen; without bypassCSP the PDF frame
 * loads under the dashboard's CSP. Screenshots go to SCREENSHOT_DIR, or to a fresh folder.
 * bypassCSP: only so that the test can inject axe-core's script.
 */
const harness = useHarness();
const screenshots = process.env.SCREENSHOT_DIR ?? mkdtempSync(path.join(tmpdir(), 'billing-screenshots-'));
const served = serveToBrowser(harness);

describe.skipIf(!browserAvailable)('dashboard: invoices and credit notes', () => {
  it('finalizes an invoice, shows and downloads its PDF, records a payment, issues a credit note for one line after showing its tax', async () => {
    const h = harness();
    const context = await served.browser.newContext({ reducedMotion: 'reduce', viewport: { width: 1280, height: 900 }, bypassCSP: true, acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`${served.baseUrl}/signup?return_to=/invoices`);
    await page.getByLabel('E-mail').fill('invoices-ui@m.test');
    await page.getByLabel('Password (at least 8 characters)').fill('a long enough password');
    await page.getByLabel('Organization name (optional)').fill('Invoice Works');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL((url) => url.pathname === '/invoices');
    await expect(page.getByText('No invoice yet').waitFor()).resolves.toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/invoices-empty.png` });

    // The API through the same sign-in session, as the dashboard calls it.
    const session = (await (await page.request.get(`${served.baseUrl}/api/v1/session`)).json()) as { csrf_token: string; organizations: { name: string; tenants: { id: string; environment: string }[] }[] };
    const tenantId = session.organizations.find((o) => o.name === 'Invoice Works')!.tenants.find((t) => t.environment === 'sandbox')!.id;
    const headers = { 'x-tenant-id': tenantId, 'x-csrf-token': session.csrf_token, origin: served.baseUrl };
    const api = async (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) => {
      const res = await page.request.fetch(`${served.baseUrl}${url}`, { method, headers, ...(body === undefined ? {} : { data: body }) });
      expect(res.status(), await res.text()).toBeLessThan(300);
      return (await res.json()) as Record<string, any>;
    };
    // A French seller and customer: 20 % VAT on each line.
    const entity = (await api('GET', '/api/v1/invoicing-entities')).data[0] as { id: string };
    await api('PATCH', `/api/v1/invoicing-entities/${entity.id}`, { country: 'FR', legal_name: 'Invoice Works SAS', city: 'Paris', zip_code: '75002', address_line1: '1 rue de la Paix' });
    const family = await api('POST', '/api/v1/product_families', { name: 'Studio' });
    const platform = await api('POST', '/api/v1/products', { name: 'Platform', product_family_id: family.id, fee_structure: { type: 'RATE' } });
    const support = await api('POST', '/api/v1/products', { name: 'Support', product_family_id: family.id, fee_structure: { type: 'RATE' } });
    const plan = await api('POST', '/api/v1/plans', {
      name: 'Studio', currency: 'EUR', product_family_id: family.id, status: 'ACTIVE',
      components: [
        { name: 'Platform', product_id: platform.id, fee: { rates: [{ term: 'MONTHLY', price: '49.00' }] } },
        { name: 'Support', product_id: support.id, fee: { rates: [{ term: 'MONTHLY', price: '20.00' }] } },
      ],
    });
    const customer = await api('POST', '/api/v1/customers', { name: 'Boulangerie Martin', currency: 'EUR', billing_address: { line1: '3 place du Marché', city: 'Lyon', zip_code: '69001', country: 'FR' } });
    // Starting today (the harness clock): the run bills the month in advance; the draft waits for its 24 h grace period.
    await api('POST', '/api/v1/subscriptions', { customer_id_or_alias: customer.id, plan_id: plan.id, start_date: h.clock.now().toISOString().slice(0, 10) });
    await h.service.tasks['billing.run']!({ once: true });
    const draft = (await api('GET', `/api/v1/invoices?customer_id=${customer.id}`)).data[0] as { id: string; status: string; total: string; tax_amount: string };
    expect(draft).toMatchObject({ status: 'DRAFT', tax_amount: '13.80', total: '82.80' });

    // The list, filtered by status, then the draft.
    await page.reload();
    await page.getByRole('link', { name: 'Draft' }).waitFor();
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'finalized' }).click();
    await page.keyboard.press('Escape');
    await expect(page.getByText('No invoice matches these filters').waitFor()).resolves.toBeUndefined();
    await page.getByRole('option', { name: 'finalized' }).waitFor({ state: 'detached' });
    // With a chosen status the input is a narrow field beside its pill; the pill box takes the click.
    await page.getByRole('combobox', { name: 'Status' }).click({ force: true });
    await page.getByRole('option', { name: 'draft' }).click();
    await page.keyboard.press('Escape');
    await expect(page.getByText('Invoices matching the filters: 1').waitFor()).resolves.toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/invoices-list.png` });
    await page.getByRole('link', { name: 'Draft' }).click();
    await page.getByRole('heading', { level: 1, name: 'Draft invoice' }).waitFor();

    // Finalize, confirmed in a dialog.
    await page.getByRole('button', { name: 'Finalize' }).click();
    await page.getByRole('dialog', { name: 'Finalize this draft?' }).getByRole('button', { name: 'Finalize now' }).click();
    const heading = page.getByRole('heading', { level: 1, name: /^Invoice INV-/ });
    await heading.waitFor();
    const number = (await heading.textContent())!.replace('Invoice ', '');
    const lines = page.getByRole('region', { name: 'Lines' });
    await expect(lines.getByRole('row', { name: /Support/ }).textContent()).resolves.toContain('4.00');
    await expect(page.getByRole('region', { name: 'Taxes' }).getByText('VAT 20% (FR)').waitFor()).resolves.toBeUndefined();

    // The PDF in the page, and its download.
    const frame = page.getByTitle(`PDF of invoice ${number}`);
    await frame.waitFor();
    expect(await frame.getAttribute('src')).toMatch(/^blob:/);
    const downloading = page.waitForEvent('download');
    await page.getByRole('region', { name: 'PDF' }).getByRole('link', { name: 'Download PDF' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`${number}.pdf`);
    expect(readFileSync(await download.path()).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/invoice-detail.png`, fullPage: true });

    // Record a payment: more than is due is refused under the amount; then 20.00.
    await page.getByRole('button', { name: 'Record a payment' }).click();
    const payment = page.getByRole('dialog', { name: 'Record a payment' });
    await payment.getByLabel('Amount (EUR)').fill('1000.00');
    await payment.getByLabel('Reference').fill('Transfer 2026-03-15 #881');
    await payment.getByRole('button', { name: 'Record payment' }).click();
    await expect.poll(() => payment.getByLabel('Amount (EUR)').getAttribute('aria-invalid'), { timeout: 20_000 }).toBe('true');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/invoice-payment-error.png` });
    await payment.getByLabel('Amount (EUR)').fill('20.00');
    await payment.getByRole('button', { name: 'Record payment' }).click();
    await payment.waitFor({ state: 'detached' });
    await expect(page.getByRole('region', { name: 'Payments' }).getByText('20.00 EUR').waitFor()).resolves.toBeUndefined();
    await expect(page.getByText('partially paid').first().waitFor()).resolves.toBeUndefined();

    // A credit note for the Support line: the draft's tax is shown before it is finalized.
    await page.getByRole('button', { name: 'Issue a credit note' }).click();
    const issue = page.getByRole('dialog', { name: 'Issue a credit note' });
    await issue.getByLabel('Reason').fill('Support not provided in March');
    await issue.getByLabel('Amount to credit on Support').fill('20.00');
    await issue.getByRole('button', { name: 'Compute the tax' }).click();
    const confirm = page.getByRole('dialog', { name: 'Confirm the credit note' });
    await expect(confirm.getByTestId('credit-note-tax').textContent()).resolves.toBe('Tax 4.00 EUR');
    await expect(confirm.getByText('Total 24.00 EUR').waitFor()).resolves.toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/credit-note-confirm.png` });
    await confirm.getByRole('button', { name: 'Finalize the credit note' }).click();
    await page.getByRole('heading', { level: 1, name: /^Credit note CN-/ }).waitFor();
    await expect(page.getByRole('region', { name: 'Lines' }).getByRole('row', { name: /Support/ }).textContent()).resolves.toContain('24.00');
    expect(await page.getByTitle(/^PDF of credit note CN-/).getAttribute('src')).toMatch(/^blob:/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/credit-note-detail.png`, fullPage: true });
    // The note cancelled 24.00 of the 82.80 asked: 58.80, of which 20.00 is paid.
    expect(await api('GET', `/api/v1/invoices/${draft.id}`)).toMatchObject({ amount_due: '58.80', amount_paid: '20.00', payment_status: 'PARTIALLY_PAID' });
    await page.getByRole('link', { name: 'this invoice' }).click();
    await expect(page.getByRole('region', { name: 'Totals' }).getByRole('row', { name: /Still to pay/ }).textContent()).resolves.toContain('38.80 EUR');
    await page.getByRole('region', { name: 'Credit notes' }).getByRole('link', { name: /^CN-/ }).waitFor();

    await page.getByRole('link', { name: 'Credit notes' }).first().click();
    await page.waitForURL((url) => url.pathname === '/credit-notes');
    await expect(page.getByText('All credit notes: 1').waitFor()).resolves.toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/credit-notes-list.png` });

    // The customer's page links to the invoice.
    await page.goto(`${served.baseUrl}/customers/${customer.id}`);
    await page.getByRole('region', { name: 'Invoices' }).getByRole('link', { name: number }).click();
    await page.waitForURL((url) => url.pathname === `/invoices/${draft.id}`);

    // An unknown invoice id: the not-found screen.
    await page.goto(`${served.baseUrl}/invoices/inv_01KKRNW4G033QP0Y3B12Z4WDQF`);
    await expect(page.getByTestId('not-found').waitFor()).resolves.toBeUndefined();

    // Under the dashboard's own CSP (no bypass), the PDF frame is allowed: no CSP refusal logged.
    const strict = await served.browser.newContext({ reducedMotion: 'reduce', viewport: { width: 1280, height: 900 }, storageState: await context.storageState() });
    const strictPage = await strict.newPage();
    await strictPage.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await strictPage.goto(`${served.baseUrl}/invoices/${draft.id}`);
    await strictPage.getByTitle(`PDF of invoice ${number}`).waitFor();
    await expect.poll(() => strictPage.frames().some((f) => f.url().startsWith('blob:')), { timeout: 20_000 }).toBe(true);
    expect(await strictPage.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
    await strict.close();
    await context.close();
  }, 180_000);
});
