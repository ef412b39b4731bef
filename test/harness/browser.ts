import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { Harness } from './app.js';

const CHROMIUM = '/usr/bin/chromium';

/**
 * Debian's Chromium is installed by .ci/run. A newcomer's `npm test` works without it (browser
 * tests are skipped); CI sets REQUIRE_BROWSER so a missing browser fails instead.
 */
export const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.REQUIRE_BROWSER) throw new Error(`REQUIRE_BROWSER is set but ${CHROMIUM} is missing`);

/** Headless Chromium with the flags this closed network needs (no background connections). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The harness's app listening on loopback, and a Chromium to look at it; filled in before the file's tests. */
export interface ServedApp {
  baseUrl: string;
  browser: Browser;
}

/** Serves the harness's app on 127.0.0.1 and launches Chromium for one test file (nothing when Chromium is missing). */
export function serveToBrowser(harness: () => Harness): ServedApp {
  const served = {} as ServedApp;
  beforeAll(async () => {
    if (!browserAvailable) return;
    const app = harness().service.app;
    await app.listen({ port: 0, host: '127.0.0.1' });
    served.baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    served.browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await served.browser?.close();
  });
  return served;
}

const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * axe-core's serious and critical violations on the page, less the shared header bar (the
 * dashboard's Layout test checks it once), as "rule: selectors" lines so a failure says where.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: axeSource });
  const result = await page.evaluate(async () => (window as unknown as { axe: { run: (context: unknown) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe.run({ exclude: [['header']] }));
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
