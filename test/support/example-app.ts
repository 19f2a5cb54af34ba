import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { AppOptions } from '../../src/app.js';
import { launchChromium } from './chromium.js';
import { buildExampleWebForAnyGateway, serveStatic } from './example-web.js';
import { startGateway, type TestGateway } from './gateway.js';
import { freePort } from './instances.js';

export const DEMO_USER = 'aroha@demo.example';

// What the functions passed to page.evaluate use: they run in the page, not in Node.
declare const window: { journey?: string };

export interface ExampleApp {
  gateway: TestGateway;
  context: BrowserContext;
  page: Page;
  origin: string;
}

/**
 * One build of the app for every test of the describe block that calls this (a build takes
 * seconds of CPU): made in beforeAll, removed in afterAll. `open` starts a test's own gateway and
 * browser on it; `openSignedIn` then signs the demo user in through the app's window.
 */
export function builtExampleApp(): {
  open: (env?: Record<string, string>, options?: AppOptions) => Promise<ExampleApp>;
  openSignedIn: (env?: Record<string, string>, options?: AppOptions) => Promise<ExampleApp>;
} {
  let build: Awaited<ReturnType<typeof buildExampleWebForAnyGateway>> | undefined;
  beforeAll(async () => void (build = await buildExampleWebForAnyGateway()), 120_000);
  afterAll(() => build?.remove());
  const open = (env?: Record<string, string>, options?: AppOptions) => openExampleApp(build!.outDir, env, options);
  return {
    open,
    openSignedIn: async (env, options) => {
      const opened = await open(env, options);
      await signIn(opened.page, opened.gateway);
      return opened;
    },
  };
}

/**
 * A gateway on its embedded sandbox with the app's origin allowed, the built app (`outDir`, from
 * buildExampleWebForAnyGateway) served on that origin, and headless Chromium at phone width on it.
 */
export async function openExampleApp(
  outDir: string,
  env: Record<string, string> = {},
  options: AppOptions = {},
): Promise<ExampleApp> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const gateway = await startGateway(
    { ALLOWED_ORIGINS: origin, SESSION_IDLE_TIMEOUT_SECONDS: '86400', ...env },
    options,
  );
  await serveStatic(outDir, port, gateway.url);
  const context = await (await launchChromium()).newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  // A step here is often a round trip through the gateway to the sandbox: more room than a page step.
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  await page.goto(origin);
  return { gateway, context, page, origin };
}

/** Signs in through the gateway in the window the app opens: password, authenticator code, consumer information, consent. */
export async function signIn(page: Page, gateway: TestGateway): Promise<void> {
  const opened = page.context().waitForEvent('page');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const popup = await opened;
  const visited: string[] = [];
  popup.on('framenavigated', (frame) => {
    if (frame === popup.mainFrame()) visited.push(new URL(frame.url()).pathname);
  });
  // Waited for from now: on a busy machine the window may come back and close before consent() returns.
  const closed = popup.waitForEvent('close', { timeout: 60_000 });
  closed.catch(() => undefined); // a step before may fail first: no unhandled rejection then
  await authenticate(popup, gateway);
  await consent(popup);
  // The gateway sends the window back to the app's flow-done page; the app closes it and carries on.
  await closed.catch(async (error: unknown) => {
    const where = popup.isClosed() ? 'closed' : `${popup.url()}: ${(await popup.textContent('body'))?.slice(0, 300)}`;
    throw new Error(`the sign-in window did not come back (${where}); visited ${visited.join(' ')}`, { cause: error });
  });
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  // Never GraphiQL (nor a second copy of the app) in the sign-in window.
  expect(visited.at(-1)).toBe('/flow-done.html');
  expect(visited).not.toContain('/graphql');
}

/** At the identity provider, in the window the app opened: password, then the code the sandbox's code page shows. */
export async function authenticate(popup: Page, gateway: TestGateway): Promise<void> {
  const user = gateway.sandbox.identity.users.byEmail(DEMO_USER)!;
  await popup.locator('#email').fill(DEMO_USER);
  await popup.locator('#secret').fill(user.demoSecret!);
  await popup.getByRole('button', { name: 'Continue' }).click();
  await popup.locator('#code').fill(gateway.sandbox.identity.currentTotp(DEMO_USER)!);
  await popup.getByRole('button', { name: 'Sign in' }).click();
}

/** The consumer information page, then the platform's consent page: connect as the demo user's bank customer. */
export async function consent(popup: Page): Promise<void> {
  await popup.getByRole('link', { name: /^Continue to/ }).click();
  await popup.getByRole('button', { name: /^Connect as Aroha Ngata/ }).click();
}

/** Marks the page, so a test can tell later that it was never reloaded. */
export async function markPage(page: Page): Promise<void> {
  await page.evaluate(() => (window.journey = 'same page'));
}

export async function samePage(page: Page): Promise<boolean> {
  return (await page.evaluate(() => window.journey)) === 'same page';
}
