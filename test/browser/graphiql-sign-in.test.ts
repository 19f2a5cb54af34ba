import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startGateway } from '../support/gateway.js';
import {
  queryText,
  resultText,
  setQuery,
  signInAtIdentityProvider,
  signInToGraphiQL,
} from '../support/graphiql-browser.js';
import { freePort } from '../support/instances.js';
import { track } from '../support/leftovers.js';

// What the functions passed to page.evaluate use: they run in the page, not in Node.
declare const document: { querySelector(selector: string): unknown; documentElement: { scrollWidth: number } };
declare const window: { innerWidth: number };

/** The frontend developer's first hour, in a real browser (headless Debian Chromium). */
describe.skipIf(!chromiumAvailable())('in a real browser', { timeout: 45_000 }, () => {
  it('signs in through the identity provider (password and authenticator code), the consumer information and consent pages, and runs the default GraphiQL query', async () => {
    const gateway = await startGateway();
    const context = await (await launchChromium()).newContext();
    const page = await signInToGraphiQL(context, gateway);

    // The default query says which identity is which: the app sign-in is not the bank's customer record.
    const query = await queryText(page);
    expect(query).toMatch(/^# .*signed in to the app/m);
    expect(query).toContain('bankCustomer: me {');
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(() => resultText(page), { timeout: 10_000 }).toContain('"preferredName"');
    const result = JSON.parse(await resultText(page)) as {
      errors?: unknown;
      data: { bankCustomer: { email: string }; other: Array<{ id: string; merchant: { name: string } | null }> };
    };
    expect(result.errors).toBeUndefined();
    // The bank's e-mail for the demo customer, under a name that says so: not the sign-in's aroha@demo.example.
    expect(result.data.bankCustomer.email).toBe(gateway.sandbox.world().users[0]!.email);
    expect(result.data.bankCustomer.email).not.toBe('aroha@demo.example');
    expect(result.data.other.find((row) => row.id === 't3')?.merchant?.name).toBe('Netflix');
    // Every lookup of the default query went out in one enrichment search.
    expect(gateway.sandbox.requests({ path: '/v1/search' })).toHaveLength(1);
  });

  it('shows "signed out" and a sign-in link when another tab signs out, on a live subscription and on the next query', async () => {
    const gateway = await startGateway();
    const context = await (await launchChromium()).newContext();
    const page = await signInToGraphiQL(context, gateway);

    const started = gateway.subscriptionsStarted(1);
    await setQuery(page, 'subscription Live { accountEvents { code } }');
    await page.locator('.graphiql-execute-button').click();
    await within(started, 10_000, 'the subscription to start');

    const other = await context.newPage();
    await other.goto(`${gateway.url}/graphql`);
    await other.locator('#sign-out').click();
    await other.getByRole('link', { name: 'Sign in' }).waitFor();

    // The socket closed with 4401: the page says so plainly, with no raw error or stack trace.
    const bar = page.locator('#bar');
    await expect.poll(() => bar.getAttribute('data-state'), { timeout: 10_000 }).toBe('signed-out');
    expect(await bar.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe(
      '/auth/login?returnTo=%2Fgraphql',
    );
    const result = await resultText(page);
    expect(result).toContain('Your session has ended');
    expect(result).not.toMatch(/4401|stack|at .*\.js/);

    // A query afterwards gets the same message instead of raw UNAUTHENTICATED JSON.
    await setQuery(page, '{ me { id } }');
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(() => resultText(page), { timeout: 10_000 }).toContain('Your session has ended');
    expect(await resultText(page)).not.toContain('UNAUTHENTICATED');
  });

  it('lets a frontend on an allowed dev-server origin call the gateway with credentials, and no other origin', async () => {
    const allowed = await devServer();
    const foreign = await devServer();
    const gateway = await startGateway({ ALLOWED_ORIGINS: allowed.origin });
    const context = await (await launchChromium()).newContext();
    await signInToGraphiQL(context, gateway);

    const page = await context.newPage();
    await page.goto(allowed.origin);
    const answer = await page.evaluate(callGateway, gateway.url);
    expect(answer).toMatchObject({ status: 200, body: { data: { me: { id: expect.stringMatching(/^user_/) } } } });
    // A live subscription from the same page, over graphql-ws's protocol on a plain WebSocket.
    expect(await page.evaluate(openSocket, gateway.url.replace(/^http/, 'ws'))).toBe('connection_ack');

    await page.goto(foreign.origin);
    // The browser itself refuses to hand the answer to a page of an origin the gateway did not allow.
    expect(await page.evaluate(callGateway, gateway.url)).toEqual({
      failed: expect.stringContaining('Failed to fetch'),
    });
    expect(await page.evaluate(openSocket, gateway.url.replace(/^http/, 'ws'))).toBe('closed');
  });

  it('makes a payment on the sandbox console and watches it reach SENT there and in a GraphiQL subscription', async () => {
    const gateway = await startGateway();
    const context = await (await launchChromium()).newContext();
    const graphiql = await signInToGraphiQL(context, gateway); // the consent page's first user
    const userId = gateway.sandbox.world().users[0]!._id;
    const started = gateway.subscriptionsStarted(1);
    await setQuery(graphiql, 'subscription Live { paymentUpdated { reportedStatus payment { id status final } } }');
    await graphiql.locator('.graphiql-execute-button').click();
    await within(started, 10_000, 'the subscription to start');

    // The signed-out page and the banner link the console; here it is opened directly.
    const console = await context.newPage();
    await console.goto(gateway.sandbox.consoleUrl);
    const user = console.locator(`section[data-user-id="${userId}"]`);
    await user.getByRole('button', { name: 'Make payment' }).click();
    const payment = user.locator('tr[data-payment-id]').first();
    await expect.poll(() => payment.locator('.status').textContent(), { timeout: 10_000 }).toBe('READY');
    await payment.getByRole('button', { name: 'SENT', exact: true }).click();
    // The console updates itself from the sandbox's events; GraphiQL from the gateway's subscription.
    await expect.poll(() => payment.locator('.status').textContent(), { timeout: 10_000 }).toBe('SENT');
    await expect.poll(() => resultText(graphiql), { timeout: 10_000 }).toContain('"status": "SENT"');
    const paymentId = await payment.getAttribute('data-payment-id');
    expect(JSON.parse(await resultText(graphiql))).toMatchObject({
      data: { paymentUpdated: { payment: { id: paymentId, status: 'SENT', final: true } } },
    });
    const deliveries = console.locator('#deliveries tr[data-delivery-id]');
    await expect.poll(() => deliveries.count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(await console.locator('#deliveries').textContent()).toContain('PAYMENT UPDATE');
  });

  it('renders the sign-in, consumer information, consent and error pages at phone width, not zoomed out', async () => {
    const gateway = await startGateway();
    const context = await (
      await launchChromium()
    ).newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 3,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    await page.goto(`${gateway.url}/graphql`);
    expect(await layoutWidth(page)).toEqual({ viewport: 390, content: 390 });
    // On the embedded sandbox, the signed-out page also links the sandbox console.
    expect(await page.getByRole('link', { name: 'console' }).getAttribute('href')).toBe(gateway.sandbox.consoleUrl);
    await page.getByRole('link', { name: 'Sign in' }).click();
    // The identity provider's sign-in and second-factor pages, the consumer information page, then the platform's consent page.
    await page.locator('#email').waitFor();
    expect(await layoutWidth(page)).toEqual({ viewport: 390, content: 390 });
    await signInAtIdentityProvider(page, gateway);
    await page.getByRole('link', { name: /^Continue to/ }).waitFor();
    expect(await layoutWidth(page)).toEqual({ viewport: 390, content: 390 });
    await page.getByRole('link', { name: /^Continue to/ }).click();
    await page
      .getByRole('button', { name: /^Connect as/ })
      .first()
      .waitFor();
    expect(await layoutWidth(page)).toEqual({ viewport: 390, content: 390 });
    await page.goto(`${gateway.url}/auth/callback?state=forged&code=x`);
    expect(await page.locator('h1').textContent()).toBeTruthy();
    expect(await layoutWidth(page)).toEqual({ viewport: 390, content: 390 });
  });
});

/** Fails with what was awaited instead of hanging until the test's timeout. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms).unref()),
  ]);
}

/** A page's layout viewport and content width: both 390 on a phone only with a viewport meta tag (else 980). */
function layoutWidth(page: Page) {
  return page.evaluate(() => ({ viewport: window.innerWidth, content: document.documentElement.scrollWidth }));
}

/** A frontend's own dev server: one empty page on `http://localhost:<port>`, the same site as the gateway's `localhost`. */
async function devServer(): Promise<{ origin: string }> {
  const port = await freePort();
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>frontend</title>');
  }).listen(port, '127.0.0.1');
  await once(server, 'listening');
  track(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { origin: `http://localhost:${port}` };
}

/** Runs in the page: what a frontend's `fetch` with `credentials: 'include'` gets. */
async function callGateway(gatewayUrl: string) {
  try {
    const response = await fetch(`${gatewayUrl}/graphql`, {
      method: 'POST',
      credentials: 'include',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { id } }' }),
    });
    return { status: response.status, body: await response.json() };
  } catch (error) {
    return { failed: String(error) };
  }
}

/** Runs in the page: opens a graphql-ws socket and reports whether the gateway acknowledged it. */
function openSocket(socketUrl: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${socketUrl}/graphql`, 'graphql-transport-ws');
    socket.onopen = () => socket.send(JSON.stringify({ type: 'connection_init' }));
    socket.onmessage = (message) => {
      resolve(String((JSON.parse(String(message.data)) as { type: string }).type));
      socket.close();
    };
    socket.onclose = () => resolve('closed');
  });
}
