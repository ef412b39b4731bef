import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
