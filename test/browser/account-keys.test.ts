import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { browserAvailable, serveToBrowser } from '../harness/browser.js';

/**
 * A merchant's first hour in Debian's Chromium: sign up, reach the account page, create a
 * sandbox API key (shown once), use it, revoke it. Forms are submitted from the keyboard where
 * that is how a keyboard user would do it. Screenshots go to SCREENSHOT_DIR, or to a fresh folder of
 * this run, so that runs of different users never write over each other's files.
 */
const harness = useHarness();
const screenshots = process.env.SCREENSHOT_DIR ?? mkdtempSync(path.join(tmpdir(), 'billing-screenshots-'));
const served = serveToBrowser(harness);

const products = (key: string) => fetch(`${served.baseUrl}/api/v1/products`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);

describe.skipIf(!browserAvailable)('account page in a browser', () => {
  it('signs up, creates a key shown once, uses it and revokes it', async () => {
    const context = await served.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${served.baseUrl}/signup?return_to=/account`);
    await page.getByLabel('E-mail').fill('first-hour@m.test');
    await page.getByLabel('Password (at least 8 characters)').fill('a long enough password');
    await page.getByLabel('Organization name (optional)').fill('Browser Books');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL((url) => url.pathname === '/account');
    expect(await page.title()).toBe('Your account');
    await expect(page.getByRole('heading', { level: 2, name: 'Environments and API keys of Browser Books' }).isVisible()).resolves.toBe(true);
    const sandbox = page.getByRole('region', { name: 'Sandbox test data' });
    const production = page.getByRole('region', { name: 'Production live data' });
    await expect(sandbox.getByText('No API key yet.').isVisible()).resolves.toBe(true);
    await expect(production.getByText(/^Tenant id ten_[0-9A-Z]{26}, environment production\./).isVisible()).resolves.toBe(true);

    // Keyboard: type the name, Enter submits the form.
    await page.getByLabel('Name of a new sandbox key').fill('Checkout server');
    await page.getByLabel('Name of a new sandbox key').press('Enter');
    await page.waitForURL((url) => url.pathname.endsWith('/api-keys'));
    expect(await page.title()).toBe('Your new API key');
    await expect(page.getByRole('alert').innerText()).resolves.toContain('Copy it now; it will not be shown again.');
    const secret = await page.getByLabel('Key "Checkout server" of Browser Books, Sandbox environment').inputValue();
    expect(secret).toMatch(/^sk_sandbox_[A-Za-z0-9]{32}$/);
    await page.screenshot({ path: `${screenshots}/account-new-key.png`, fullPage: true });
    expect(await products(secret)).toBe(200);

    await page.getByRole('link', { name: 'Back to your account' }).click();
    await page.waitForURL((url) => url.pathname === '/account');
    const row = sandbox.getByRole('row').filter({ hasText: 'Checkout server' });
    const hint = `${secret.slice(0, 15)}...${secret.slice(-4)}`;
    const cells = await row.getByRole('cell').allInnerTexts();
    expect(cells.slice(0, 2)).toEqual(['Checkout server', hint]);
    expect(cells[4]).toBe('active');
    expect(await page.content()).not.toContain(secret);
    await page.screenshot({ path: `${screenshots}/account-page.png`, fullPage: true });

    // Keyboard again: focus the Revoke button, Enter opens the confirmation, then confirm.
    await row.getByRole('button', { name: `Revoke key Checkout server (${hint})` }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname.endsWith('/revoke'));
    expect(await page.title()).toBe('Revoke an API key');
    await page.screenshot({ path: `${screenshots}/account-revoke.png`, fullPage: true });
    await page.getByRole('button', { name: 'Revoke this key' }).click();
    await page.waitForURL((url) => url.search === '?revoked=1');
    await expect(page.getByRole('status').innerText()).resolves.toContain('API key revoked.');
    expect(await sandbox.getByRole('row').filter({ hasText: 'Checkout server' }).getByRole('cell').nth(4).innerText()).toMatch(/^revoked \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(await products(secret)).toBe(401);
    await context.close();
  }, 60_000);
});
