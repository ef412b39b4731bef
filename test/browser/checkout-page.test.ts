import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { browserAvailable, serveToBrowser } from '../harness/browser.js';
import { seedCustomer, seedPlan } from '../http/subscription-fixtures.js';

/**
 * The hosted checkout page in Debian's Chromium, JavaScript off (the sandbox form needs none): the
 * customer follows the session's checkout_url, sees the offer, applies a coupon, is declined with
 * the provider's message, then pays with a good card and lands on success_url (another origin,
 * which the page's form-action CSP must allow for the redirect). Screenshots go to SCREENSHOT_DIR,
 * or to a fresh folder of the run (its path is logged).
 */
const harness = useHarness();
const served = serveToBrowser(harness);
const screenshots = process.env.SCREENSHOT_DIR ?? mkdtempSync(path.join(tmpdir(), 'billing-screenshots-'));

// the merchant's shop: another origin, whose welcome page the customer lands on
let shop: Server;
let shopUrl = '';
beforeAll(async () => {
  shop = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Welcome to the shop</title><h1>Thanks for subscribing</h1>'));
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => shop.close(resolve));
});

describe.skipIf(!browserAvailable)('hosted checkout page in a browser (sandbox)', () => {
  it('shows the offer, takes a coupon, shows a decline, then pays and redirects to success_url', async () => {
    console.log(`checkout page screenshots: ${screenshots}`);
    const h = harness();
    const plan = await seedPlan(h, h.tenant.id, h.tenant.apiKey);
    const customer = await seedCustomer(h, h.tenant.apiKey, { alias: 'browser-checkout' });
    const code = 'HALFOFF';
    expect((await h.request('POST', '/api/v1/coupons', { body: { code, discount: { type: 'PERCENTAGE', percentage: '50' } } })).statusCode).toBe(201);
    const created = await fetch(`${served.baseUrl}/api/v1/checkout-sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customer_id: customer.id, plan_version_id: plan.versionId, success_url: `${shopUrl}/welcome`, cancel_url: `${shopUrl}/pricing` }),
    }).then((r) => r.json()) as { session: { id: string; checkout_url: string } };
    const { session } = created;
    expect(session.checkout_url).toMatch(new RegExp(`^${served.baseUrl}/checkout/cs_[A-Za-z0-9_-]{43}$`));

    const context = await served.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    expect((await page.goto(session.checkout_url))?.status()).toBe(200);
    expect(await page.title()).toBe('Subscribe to Pro');
    const facts = await page.locator('main').innerText();
    expect(facts).toContain('Platform');
    expect(facts).toContain('Seats');
    expect(facts).toContain('Total with tax');
    const fullPrice = await page.getByTestId('due-now').innerText();
    await page.screenshot({ path: `${screenshots}/checkout-page.png`, fullPage: true });

    // a coupon code, priced in
    await page.getByLabel('Coupon code').fill(code);
    await page.getByRole('button', { name: 'Apply coupon' }).click();
    const halfPrice = await page.getByTestId('due-now').innerText();
    expect(Number.parseFloat(halfPrice)).toBeCloseTo(Number.parseFloat(fullPrice) / 2, 2);
    expect(await page.locator('main').innerText()).toContain('Discount');

    // a declined card: its message, the session still open, nothing subscribed
    await page.getByLabel('Card number').fill('4000 0000 0000 0002');
    await page.getByRole('button', { name: `Pay ${halfPrice} and subscribe` }).click();
    expect(await page.getByRole('alert').innerText()).toContain('Your card was declined.');
    await page.screenshot({ path: `${screenshots}/checkout-page-declined.png`, fullPage: true });
    expect((await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session).toMatchObject({ status: 'CREATED', subscription_id: null });

    // a good card: paid, redirected to the shop's success page
    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByRole('button', { name: `Pay ${halfPrice} and subscribe` }).click();
    await page.waitForURL(`${shopUrl}/welcome`);
    expect(await page.title()).toBe('Welcome to the shop');
    await page.screenshot({ path: `${screenshots}/checkout-page-success.png`, fullPage: true });

    const done = (await h.request('GET', `/api/v1/checkout-sessions/${session.id}`)).json().session;
    expect(done).toMatchObject({ status: 'COMPLETED', coupon_code: code, checkout_url: null });
    const invoices = (await h.request('GET', `/api/v1/invoices?customer_id=${customer.id}`)).json().data as { payment_status: string; total: string; currency: string }[];
    expect(invoices).toEqual([expect.objectContaining({ payment_status: 'PAID' })]);
    expect(`${invoices[0]!.total} ${invoices[0]!.currency}`).toBe(halfPrice);

    // the link now says the checkout is complete
    await page.goto(session.checkout_url);
    expect(await page.getByRole('status').innerText()).toContain('This checkout is complete');
    await context.close();
  }, 90_000);
});
