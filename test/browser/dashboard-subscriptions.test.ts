import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { browserAvailable, serveToBrowser, seriousViolations } from '../harness/browser.js';

/**
 * The dashboard's Subscriptions screens in Debian's Chromium (issue 18): a plan with a usage
 * component, a slot component and an add-on offer, and a customer, are seeded through the API
 * with the sign-in session; then, in the dashboard: from the customer, a new subscription with
 * its first invoice previewed before it is created (a refused coupon first, shown with the
 * coupon field), an add-on added, slots raised, a plan change with its proration previewed
 * before it is confirmed, a cancellation at the period end, the list filtered by status, its
 * invoice (drafted by the billing run) opened from the customer, finalized and its PDF downloaded,
 * Home's charts of it with their figures as a table; axe-core
 * finds no serious or critical violation on each screen; another organization's subscription id
 * gives the not-found screen. Screenshots go to SCREENSHOT_DIR, or to a fresh folder of this run.
 * bypassCSP: only so that the test can inject axe-core's script; the app runs under its CSP.
 */
const harness = useHarness();
const screenshots = process.env.SCREENSHOT_DIR ?? mkdtempSync(path.join(tmpdir(), 'billing-screenshots-'));
const served = serveToBrowser(harness);

/** Picks an option of a Mantine Select by its label. */
async function choose(page: Page, scope: ReturnType<Page['getByRole']> | Page, label: string, option: string): Promise<void> {
  await scope.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

describe.skipIf(!browserAvailable)('dashboard: subscriptions', () => {
  it('creates a subscription seeing its first invoice, adds an add-on, raises slots, changes plan seeing the proration, cancels, finalizes its invoice and downloads the PDF, sees it charted on Home; no serious accessibility violation', async () => {
    const context = await served.browser.newContext({ reducedMotion: 'reduce', viewport: { width: 1280, height: 900 }, bypassCSP: true, acceptDownloads: true });
    const page = await context.newPage();
    try {
      await walkThrough(page);
    } catch (error) {
      // what the screen showed when a step failed, to read in the screenshots folder
      await page.screenshot({ path: `${screenshots}/subscriptions-failure.png`, fullPage: true });
      throw error;
    } finally {
      await context.close();
    }
  }, 240_000);
});

async function walkThrough(page: Page): Promise<void> {
    const h = harness();
    await page.goto(`${served.baseUrl}/signup?return_to=/subscriptions`);
    await page.getByLabel('E-mail').fill('subscriptions-ui@m.test');
    await page.getByLabel('Password (at least 8 characters)').fill('a long enough password');
    await page.getByLabel('Organization name (optional)').fill('Nordlicht Works');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL((url) => url.pathname === '/subscriptions');
    await page.getByText('No subscription yet').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/subscriptions-empty.png` });

    // The catalog and the customer through the API, with the same sign-in session.
    const session = (await (await page.request.get(`${served.baseUrl}/api/v1/session`)).json()) as { csrf_token: string; organizations: { name: string; tenants: { id: string; environment: string }[] }[] };
    const tenantId = session.organizations.find((o) => o.name === 'Nordlicht Works')!.tenants.find((t) => t.environment === 'sandbox')!.id;
    const api = async (url: string, body: unknown) => {
      const res = await page.request.post(`${served.baseUrl}${url}`, { data: body, headers: { 'x-tenant-id': tenantId, 'x-csrf-token': session.csrf_token, origin: served.baseUrl } });
      expect(res.status(), await res.text()).toBeLessThan(300);
      return (await res.json()) as { id: string };
    };
    const family = await api('/api/v1/product_families', { name: 'Cloud' });
    const metric = await api('/api/v1/metrics', { name: 'API calls', code: 'api_calls', aggregation_type: 'COUNT', product_family_id: family.id });
    const platform = await api('/api/v1/products', { name: 'Platform', product_family_id: family.id, fee_structure: { type: 'RATE' } });
    const seats = await api('/api/v1/products', { name: 'Seats', product_family_id: family.id, fee_structure: { type: 'SLOT', slot_unit_name: 'seat' } });
    const calls = await api('/api/v1/products', { name: 'API calls', product_family_id: family.id, fee_structure: { type: 'USAGE', metric_id: metric.id, model: 'PER_UNIT' } });
    const support = await api('/api/v1/products', { name: 'Support', product_family_id: family.id, fee_structure: { type: 'RATE' } });
    const addOn = await api('/api/v1/addons', { name: 'Priority support', product_id: support.id, price: { currency: 'EUR', fee: { rates: [{ term: 'MONTHLY', price: '19.90' }] } } });
    await api('/api/v1/plans', {
      name: 'Starter', currency: 'EUR', product_family_id: family.id, status: 'ACTIVE', add_ons: [{ add_on_id: addOn.id }],
      components: [
        { name: 'Platform', product_id: platform.id, fee: { rates: [{ term: 'MONTHLY', price: '49.00' }] } },
        { name: 'Seats', product_id: seats.id, fee: { rates: [{ price: '10.00' }], minimum_count: 1, quota: 20 } },
        { name: 'API calls', product_id: calls.id, fee: { pricing: { rate: '0.05' } } },
      ],
    });
    await api('/api/v1/plans', { name: 'Business', currency: 'EUR', product_family_id: family.id, status: 'ACTIVE', components: [{ name: 'Platform', product_id: platform.id, fee: { rates: [{ term: 'MONTHLY', price: '99.00' }] } }] });
    const customer = await api('/api/v1/customers', { name: 'Nordlicht GmbH', currency: 'EUR' });

    // From the customer: New subscription, the customer chosen.
    await page.goto(`${served.baseUrl}/customers/${customer.id}`);
    await page.getByRole('region', { name: 'Subscriptions' }).getByRole('link', { name: 'New subscription' }).click();
    await page.waitForURL((url) => url.pathname === '/subscriptions/new');
    const form = page.getByRole('form', { name: 'New subscription' });
    await expect.poll(() => form.getByRole('combobox', { name: 'Customer', exact: true }).inputValue(), { timeout: 20_000 }).toBe('Nordlicht GmbH (EUR)');
    await choose(page, form, 'Plan', 'Starter v1 (EUR)');
    await form.getByRole('textbox', { name: 'Start date', exact: true }).fill('2026-03-15'); // the harness's today
    await form.getByRole('textbox', { name: 'Slots of Seats', exact: true }).fill('3');
    // A refused coupon: the API's message is shown with the coupon field, nothing is created.
    await form.getByRole('combobox', { name: 'Coupon codes', exact: true }).fill('NOPE');
    await form.getByRole('combobox', { name: 'Coupon codes', exact: true }).press('Enter');
    await form.getByRole('button', { name: 'Preview the first invoice' }).click();
    await expect.poll(() => form.getByText(/^coupon_codes\[0\]/).count(), { timeout: 20_000 }).toBe(1);
    await form.getByRole('combobox', { name: 'Coupon codes', exact: true }).press('Backspace');
    await form.getByRole('button', { name: 'Preview the first invoice' }).click();
    const first = page.getByRole('region', { name: 'First invoice' });
    await first.getByText('79.00 EUR').first().waitFor();
    await first.getByRole('cell', { name: 'Platform', exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/subscription-create-preview.png`, fullPage: true });
    await first.getByRole('button', { name: 'Create subscription' }).click();
    await page.waitForURL((url) => /^\/subscriptions\/sub_/.test(url.pathname));
    const subscriptionId = new URL(page.url()).pathname.split('/')[2]!;
    await page.getByRole('heading', { level: 1, name: 'Starter v1' }).waitFor();
    await page.getByRole('region', { name: 'Upcoming invoice' }).getByText('79.00 EUR').first().waitFor();

    // Add-on, then slots.
    const addOns = page.getByRole('region', { name: 'Add-ons' });
    await choose(page, addOns, 'Add-on', 'Priority support');
    await addOns.getByRole('button', { name: 'Add add-on' }).click();
    await addOns.getByRole('cell', { name: 'Priority support', exact: true }).waitFor();
    const slots = page.getByRole('region', { name: 'Slots' });
    await slots.getByRole('textbox', { name: 'Slots of Seats', exact: true }).fill('25');
    await slots.getByRole('button', { name: 'Update slots' }).click();
    await expect.poll(() => slots.getByRole('textbox', { name: 'Slots of Seats', exact: true }).getAttribute('aria-invalid'), { timeout: 20_000 }).toBe('true');
    await slots.getByText('slots must be at most 20').waitFor();
    await slots.getByRole('textbox', { name: 'Slots of Seats', exact: true }).fill('5');
    await slots.getByRole('button', { name: 'Update slots' }).click();
    await page.getByRole('region', { name: 'Components' }).getByText(/^5 × 10\.00 EUR per month per seat$/).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/subscription-detail.png`, fullPage: true });

    // Change plan: the next invoice with the change is shown before it is confirmed.
    await page.getByRole('button', { name: 'Change plan' }).click();
    const change = page.getByRole('dialog', { name: 'Change plan' });
    await choose(page, change, 'New plan', 'Business v1');
    await change.getByRole('button', { name: 'Preview the change' }).click();
    const after = change.getByRole('region', { name: 'Invoice after the change' });
    await after.getByText('Next invoice with the change').waitFor();
    await after.getByRole('cell', { name: 'Platform' }).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/subscription-change-plan.png` });
    await after.getByRole('button', { name: 'Confirm the plan change' }).click();
    await page.getByRole('heading', { level: 1, name: 'Business v1' }).waitFor();

    // Cancel at the end of the current period.
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    const cancel = page.getByRole('dialog', { name: 'Cancel the subscription' });
    await cancel.getByRole('textbox', { name: 'Reason', exact: true }).fill('Moving to the annual contract');
    await cancel.getByRole('button', { name: 'Cancel the subscription' }).click();
    await page.getByText('cancels on 2026-04-15').waitFor();
    const stored = (await (await page.request.get(`${served.baseUrl}/api/v1/subscriptions/${subscriptionId}`, { headers: { 'x-tenant-id': tenantId } })).json()) as { plan_name: string; cancel_effective_date: string; add_ons: unknown[] };
    expect(stored).toMatchObject({ plan_name: 'Business', cancel_effective_date: '2026-04-15' });
    await page.screenshot({ path: `${screenshots}/subscription-cancelled.png`, fullPage: true });

    // The list, filtered by status; the customer's screen links to the subscription.
    await page.goto(`${served.baseUrl}/subscriptions`);
    await choose(page, page, 'Status', 'active');
    await page.getByText('Matching subscriptions: 1').waitFor();
    await page.getByRole('link', { name: 'Nordlicht GmbH' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/subscriptions-list.png` });
    await page.goto(`${served.baseUrl}/customers/${customer.id}`);
    await page.getByRole('region', { name: 'Subscriptions' }).getByRole('link', { name: 'Business v1' }).click();
    await page.waitForURL((url) => url.pathname === `/subscriptions/${subscriptionId}`);

    // Its invoice: the billing run drafts it; from the customer's screen, finalized, then its PDF downloaded.
    await h.service.tasks['billing.run']!({ once: true });
    await page.goto(`${served.baseUrl}/customers/${customer.id}`);
    await page.getByRole('region', { name: 'Invoices' }).getByRole('link', { name: 'Draft', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Draft invoice' }).waitFor();
    await page.getByRole('region', { name: 'Lines' }).getByRole('row', { name: /Platform/ }).first().waitFor();
    await page.getByRole('button', { name: 'Finalize' }).click();
    await page.getByRole('dialog', { name: 'Finalize this draft?' }).getByRole('button', { name: 'Finalize now' }).click();
    const invoiceHeading = page.getByRole('heading', { level: 1, name: /^Invoice INV-/ });
    await invoiceHeading.waitFor();
    const invoiceNumber = (await invoiceHeading.textContent())!.replace('Invoice ', '');
    const downloading = page.waitForEvent('download');
    await page.getByRole('region', { name: 'PDF' }).getByRole('link', { name: 'Download PDF' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`${invoiceNumber}.pdf`);
    expect(readFileSync(await download.path()).subarray(0, 5).toString('latin1')).toBe('%PDF-');

    // Home charts the finalized invoice (uPlot canvases); their figures open as a table from the keyboard.
    await page.getByRole('link', { name: 'Home', exact: true }).click();
    const mrr = page.getByRole('figure', { name: 'MRR by month, EUR' });
    await mrr.locator('[data-drawn]').waitFor();
    await page.getByRole('figure', { name: 'Invoiced and still unpaid by month, EUR' }).locator('[data-drawn]').waitFor();
    await expect(mrr.getByRole('img', { name: 'MRR by month, EUR' }).count()).resolves.toBe(1);
    await mrr.getByText('Show the figures').focus();
    await page.keyboard.press('Enter');
    await mrr.getByRole('table', { name: 'MRR by month, EUR' }).getByRole('row', { name: /^Mar 26/ }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${screenshots}/home-charts.png`, fullPage: true });

    // Another organization's subscription: the not-found screen, none of its data.
    const otherKey = h.other.apiKey;
    const otherPlan = (await h.request('POST', '/api/v1/product_families', { key: otherKey, body: { name: 'Other' } })).json() as { id: string };
    const otherProduct = (await h.request('POST', '/api/v1/products', { key: otherKey, body: { name: 'P', product_family_id: otherPlan.id, fee_structure: { type: 'RATE' } } })).json() as { id: string };
    const plan = (await h.request('POST', '/api/v1/plans', { key: otherKey, body: { name: 'Secret Other Plan', currency: 'EUR', product_family_id: otherPlan.id, status: 'ACTIVE', components: [{ name: 'P', product_id: otherProduct.id, fee: { rates: [{ term: 'MONTHLY', price: '1.00' }] } }] } })).json() as { id: string };
    const otherCustomer = (await h.request('POST', '/api/v1/customers', { key: otherKey, body: { name: 'Other', currency: 'EUR' } })).json() as { id: string };
    const otherSub = await h.request('POST', '/api/v1/subscriptions', { key: otherKey, body: { customer_id_or_alias: otherCustomer.id, plan_id: plan.id, start_date: '2026-03-01' } });
    expect(otherSub.statusCode, otherSub.body).toBe(201);
    await page.goto(`${served.baseUrl}/subscriptions/${otherSub.json().id}`);
    await page.getByTestId('not-found').waitFor();
    expect(await page.content()).not.toContain('Secret Other Plan');
}
