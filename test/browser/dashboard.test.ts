import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../harness/app.js';
import { browserAvailable, serveToBrowser } from '../harness/browser.js';

/**
 * The dashboard (docs/dashboard.md) in Debian's Chromium against the harness's service: sign up,
 * land on Home, sign out and sign in again, create an API key, register a webhook endpoint, create an OAuth app and rotate
 * its secret, and open another organization's ids (not found, no data). axe-core checks every
 * screen: no serious or critical violation. Screenshots go to SCREENSHOT_DIR or a fresh folder.
 */
const harness = useHarness();
const served = serveToBrowser(harness);
const screenshots = process.env.SCREENSHOT_DIR ?? mkdtempSync(path.join(tmpdir(), 'dashboard-screenshots-'));
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's WCAG A/AA rules on the page as it is; returns the serious and critical violations. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Checks the screen with axe and keeps its screenshot. */
async function checkScreen(page: Page, name: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: `${screenshots}/${name}.png` });
  expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
}

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name });

describe.skipIf(!browserAvailable)('dashboard in a browser', () => {
  it('signs up, lands on Home, signs out and in, manages API keys, webhooks and OAuth apps, and hides other organizations', async () => {
    const h = harness();
    const context = await served.browser.newContext({ reducedMotion: 'reduce', bypassCSP: true, viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    // Sign-up is the existing page; without return_to it lands on the dashboard.
    await page.goto(`${served.baseUrl}/signup`);
    await page.getByLabel('E-mail').fill('dash@m.test');
    await page.getByLabel('Password (at least 8 characters)').fill('a long enough password');
    await page.getByLabel('Organization name (optional)').fill('Dash Books');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await heading(page, 'Home').waitFor();
    await expect(page.getByRole('note', { name: 'Sandbox' }).innerText()).resolves.toContain('Sandbox: test data');
    await page.getByText('No invoice yet').waitFor();
    expect(await page.title()).toBe('Home · Sandbox · Billing');
    await checkScreen(page, 'home');

    // Sign out from the navigation, then sign in again on the sign-in page: back on Home.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/signin');
    await page.getByLabel('E-mail').fill('dash@m.test');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await heading(page, 'Home').waitFor();

    // API keys: the secret once, usable, then only its hint.
    await page.getByRole('link', { name: 'API keys' }).click();
    await heading(page, 'API keys').waitFor();
    await page.getByText('No API key yet').waitFor();
    await checkScreen(page, 'api-keys-empty');
    await page.getByLabel('Name of a new key').fill('Checkout server');
    await page.getByLabel('Name of a new key').press('Enter');
    const secret = await page.getByLabel('Key "Checkout server"').inputValue();
    expect(secret).toMatch(/^sk_sandbox_[A-Za-z0-9]{32}$/);
    const products = await fetch(`${served.baseUrl}/api/v1/products`, { headers: { authorization: `Bearer ${secret}` } });
    expect(products.status).toBe(200);
    await page.getByRole('row').filter({ hasText: 'Checkout server' }).waitFor();
    await checkScreen(page, 'api-keys');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(secret);

    // A field error from the API shows next to the field it names.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await heading(page, 'Webhook endpoints').waitFor();
    await page.getByLabel('Endpoint URL').fill('not a url');
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    const urlError = page.locator('.mantine-TextInput-error');
    await urlError.first().waitFor();
    expect(await urlError.first().innerText()).toMatch(/^url /);

    await page.getByLabel('Endpoint URL').fill('https://hooks.example/billing');
    await page.getByLabel('Description (optional)').fill('Order system');
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    expect(await page.getByLabel('Signing secret of https://hooks.example/billing').inputValue()).toMatch(/^whsec_/);
    await page.getByRole('link', { name: 'https://hooks.example/billing' }).click();
    await heading(page, 'https://hooks.example/billing').waitFor();
    await page.getByText('No delivery yet').waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.locator('.mantine-Accordion-control').first().click();
    await page.getByRole('button', { name: 'Redeliver' }).waitFor();
    await checkScreen(page, 'webhook-endpoint');
    const endpointUrl = page.url();

    // OAuth app: created with its secret once, then rotated to a new one.
    await page.getByRole('link', { name: 'OAuth apps' }).click();
    await heading(page, 'OAuth apps').waitFor();
    await page.getByLabel('App name').fill('Acme Platform');
    await page.getByLabel('Redirect URIs').fill('https://platform.example/callback');
    await page.getByRole('button', { name: 'Create app' }).click();
    const first = await page.getByLabel(/^Client secret of Acme Platform/).inputValue();
    await checkScreen(page, 'oauth-apps');
    await page.getByRole('link', { name: 'Acme Platform' }).click();
    await heading(page, 'Acme Platform').waitFor();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Rotate now' }).click();
    const rotated = await page.getByLabel('New client secret of Acme Platform').inputValue();
    expect(rotated).not.toBe(first);
    expect(rotated.length).toBeGreaterThan(20);
    await checkScreen(page, 'oauth-app');

    await page.getByRole('link', { name: 'Environment' }).click();
    await heading(page, 'Environment settings').waitFor();
    await page.getByText('Do not send e-mails to customers').waitFor();
    await checkScreen(page, 'settings-environment');

    // Production, chosen from the keyboard (the switch is a radio group: arrow keys): the banner
    // goes, the header says Production, the keys are the production tenant's (none yet).
    await page.getByRole('radio', { name: 'Sandbox', exact: true }).focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.title()).toBe('Environment settings · Production · Billing');
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByText('No API key yet').waitFor();
    expect(await page.getByRole('note', { name: 'Sandbox' }).count()).toBe(0);
    await expect(page.getByRole('banner').getByText('Production', { exact: true }).first().isVisible()).resolves.toBe(true);
    await checkScreen(page, 'api-keys-production');
    await page.locator('label', { hasText: /^Sandbox$/ }).click();
    await page.getByRole('note', { name: 'Sandbox' }).waitFor();

    // Another organization's ids: the not-found screen, and none of its data.
    const foreign = await h.request('POST', '/api/v1/oauth/apps', { key: h.other.apiKey, body: { name: 'Other Org App', redirect_uris: ['https://other.example/cb'] } });
    expect(foreign.statusCode).toBe(201);
    const foreignHook = await h.request('POST', '/api/v1/webhooks/endpoints', { key: h.other.apiKey, body: { url: 'https://other.example/hook' } });
    expect(foreignHook.statusCode, foreignHook.body).toBe(201);
    for (const url of [`/developers/oauth-apps/${foreign.json().id}`, `/developers/webhooks/${foreignHook.json().id}`]) {
      await page.goto(`${served.baseUrl}${url}`);
      await heading(page, 'Not found').waitFor();
      const text = await page.content();
      expect(text).not.toContain('Other Org App');
      expect(text).not.toContain('other.example');
    }
    await checkScreen(page, 'not-found');
    await page.goto(`${served.baseUrl}/no/such/screen`);
    await heading(page, 'Not found').waitFor();
    // Our own endpoint still opens by its URL.
    await page.goto(endpointUrl);
    await heading(page, 'https://hooks.example/billing').waitFor();

    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
