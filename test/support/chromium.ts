import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { track } from './leftovers.js';

/** Debian's Chromium (`apt-get install -y chromium`); `.ci/run` installs it. Never a browser download. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Whether the browser tests can run here. On CI (`CI` set) a missing Chromium is a failure, not a
 * skip, so the journeys cannot silently stop being tested; on a developer's machine without it they
 * are skipped with this reason printed.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: .ci/run installs Debian's chromium`);
  process.stderr.write(`browser tests skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium)\n`);
  return false;
}

/** Headless Chromium with no background traffic (this machine's network is closed); closed after the test. */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
  track(() => browser.close());
  // A step that cannot finish fails with its locator named, well before the test's own timeout.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(10_000);
    return context;
  };
  return browser;
}
