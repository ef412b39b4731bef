import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { browserAvailable, serveToBrowser, seriousViolations } from '../harness/browser.js';

/**
 * The dashboard's Customers screens in Debian's Chromium (issue 18): sign up, create a customer
 * in the dashboard, subscribe it to a plan seeded through the API with the same session, find
 * it by search, see its subscription and first invoice on its page, create a portal link;
 * axe-core finds no serious or critical violation; another organization's customer id gives
 * the not-found screen. Screenshots go to SCREENSHOT_DIR, or to a fresh folder of this run.
 * bypassCSP: only so that the test can inject axe-core's script; the app runs under its CSP.
 */
const harness = useHarness();
const screenshots = process.env.SCREENSHOT_DIR ?? mkdtempSync(path.join(tmpdir(), 'billing-screenshots-'));
const served = serveToBrowser(harness);

describe.skipIf(!browserAvailable)('dashboard: customers', () => {
  it('creates a customer, subscribes it, finds it, shows its subscription, invoice and portal link; no serious accessibility violation', async () => {
    const h = harness();
    const context = await served.browser.newContext({ reducedMotion: 'reduce', viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${served.baseUrl}/signup?return_to=/customers`);
    await page.getByLabel('E-mail').fill('customers-ui@m.test');
    await page.getByLabel('Password (at least 8 characters)').fill('a long enough password');
    await page.getByLabel('Organization name (optional)').fill('Customer Crafts');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL((url) => url.pathname === '/customers');
    await expect(page.getByText('No customer yet').waitFor()).resolves.toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/customers-empty.png` });

    // The API through the same sign-in session, as the dashboard calls it.
    const session = (await (await page.request.get(`${served.baseUrl}/api/v1/session`)).json()) as { csrf_token: string; organizations: { name: string; tenants: { id: string; environment: string }[] }[] };
    const tenantId = session.organizations.find((o) => o.name === 'Customer Crafts')!.tenants.find((t) => t.environment === 'sandbox')!.id;
    const api = async (url: string, body: unknown) => {
      const res = await page.request.post(`${served.baseUrl}${url}`, { data: body, headers: { 'x-tenant-id': tenantId, 'x-csrf-token': session.csrf_token, origin: served.baseUrl } });
      expect(res.status(), await res.text()).toBeLessThan(300);
      return (await res.json()) as { id: string };
    };
    const family = await api('/api/v1/product_families', { name: 'Crafts' });
    const product = await api('/api/v1/products', { name: 'Workshop', product_family_id: family.id, fee_structure: { type: 'RATE' } });
    const plan = await api('/api/v1/plans', { name: 'Studio', currency: 'EUR', product_family_id: family.id, status: 'ACTIVE', components: [{ name: 'Workshop', product_id: product.id, fee: { rates: [{ term: 'MONTHLY', price: '49.00' }] } }] });

    // Create: the API's refusal shows under the field it names, then a valid customer is created.
    await page.getByRole('button', { name: 'New customer' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New customer' });
    await dialog.getByLabel('Name').fill('Atelier Nord');
    await dialog.getByLabel('Alias').fill('atelier-nord');
    await dialog.getByLabel('Billing e-mail').fill('billing@atelier-nord.test');
    await dialog.getByLabel('Currency').fill('EU1');
    await dialog.getByRole('button', { name: 'Create customer' }).click();
    await expect.poll(() => dialog.getByLabel('Currency').getAttribute('aria-invalid'), { timeout: 20_000 }).toBe('true');
    await page.screenshot({ path: `${screenshots}/customer-create-error.png` });
    await dialog.getByLabel('Currency').fill('EUR');
    await dialog.getByRole('button', { name: 'Create customer' }).click();
    await page.waitForURL((url) => /^\/customers\/cus_/.test(url.pathname));
    const customerId = new URL(page.url()).pathname.split('/')[2]!;
    await expect(page.getByRole('heading', { level: 1, name: 'Atelier Nord' }).waitFor()).resolves.toBeUndefined();

    await api('/api/v1/subscriptions', { customer_id_or_alias: customerId, plan_id: plan.id, start_date: '2026-03-01' });
    await h.drainJobs();

    // Search by part of the e-mail.
    await page.goto(`${served.baseUrl}/customers`);
    await page.getByLabel('Search customers').fill('atelier-nord.te');
    await expect(page.getByText('Customers matching "atelier-nord.te": 1').waitFor()).resolves.toBeUndefined();
    await page.getByLabel('Search customers').fill('nothing-like-it');
    await expect(page.getByText('No customer matches "nothing-like-it"').waitFor()).resolves.toBeUndefined();
    await page.getByLabel('Search customers').fill('nord');
    await page.getByRole('link', { name: 'Atelier Nord' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/customers-list.png` });

    await page.getByRole('link', { name: 'Atelier Nord' }).click();
    const subscriptions = page.getByRole('region', { name: 'Subscriptions' });
    await expect(subscriptions.getByText('Studio v1').waitFor()).resolves.toBeUndefined();
    const invoices = page.getByRole('region', { name: 'Invoices' });
    // What the API lists for this customer is what the page shows (a new subscription may not be invoiced yet).
    const listed = (await (await page.request.get(`${served.baseUrl}/api/v1/invoices?customer_id=${customerId}`, { headers: { 'x-tenant-id': tenantId } })).json()) as { data: { invoice_number: string }[] };
    if (listed.data.length === 0) await expect(invoices.getByText('No invoice yet').waitFor()).resolves.toBeUndefined();
    else await expect(invoices.getByText(listed.data[0]!.invoice_number).waitFor()).resolves.toBeUndefined();
    await page.getByRole('region', { name: 'Balance and credits' }).getByText('No credit grant').waitFor();
    await page.getByRole('button', { name: 'Create portal link' }).click();
    expect(await page.getByLabel('Portal link for this customer').inputValue()).toMatch(/^http.*\/portal/);
    await page.getByRole('region', { name: 'Usage' }).getByText('No usage in this period').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/customer-detail.png`, fullPage: true });

    // Another organization's customer: the not-found screen, none of its data.
    const other = (await h.request('POST', '/api/v1/customers', { key: h.other.apiKey, body: { name: 'Secret Other Org Customer', currency: 'EUR' } })).json() as { id: string };
    await page.goto(`${served.baseUrl}/customers/${other.id}`);
    await expect(page.getByTestId('not-found').waitFor()).resolves.toBeUndefined();
    expect(await page.content()).not.toContain('Secret Other Org Customer');
    await page.screenshot({ path: `${screenshots}/customer-not-found.png` });
    await context.close();
  }, 120_000);
});
