import { describe, expect, it } from 'vitest';
import { Browser } from '../support/browser.js';
import { signIn, startGateway, type TestGateway } from '../support/gateway.js';
import { freePort } from '../support/instances.js';
import { connectBank, signInOnly } from '../support/sign-in-steps.js';

/** A frontend on another origin (nothing need listen there: only where the browser is sent is read). */
async function frontendGateway(): Promise<{ gateway: TestGateway; app: string }> {
  const app = `http://localhost:${await freePort()}`;
  return { gateway: await startGateway({ ALLOWED_ORIGINS: app }), app };
}

const returnTo = (value: string) => `?${new URLSearchParams({ returnTo: value })}`;

/** `{ connection { connectUrl stepUpUrl } }` as a browser on `origin` (if any) sends it. */
async function links(gateway: TestGateway, browser: Browser, origin?: string) {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
    body: JSON.stringify({ query: '{ connection { connectUrl stepUpUrl } }' }),
  });
  expect(response.status).toBe(200);
  const { connectUrl, stepUpUrl } = (JSON.parse(response.text) as { data: { connection: Record<string, string> } }).data
    .connection;
  return { connect: new URL(connectUrl!), stepUp: new URL(stepUpUrl!) };
}

describe('a frontend on another origin in ALLOWED_ORIGINS', () => {
  it('gets the browser back after a first sign-in, through the consumer information page and the consent', async () => {
    const { gateway, app } = await frontendGateway();
    const { browser, landed: signedIn } = await signInOnly(gateway, 0, returnTo(`${app}/`));
    expect(signedIn.status).toBe(303);
    const info = new URL(signedIn.location!, gateway.url);
    expect(info.pathname).toBe('/auth/consumer-info');
    expect(info.searchParams.get('returnTo')).toBe(`${app}/`);
    const landed = await connectBank(browser, gateway.url, { query: info.search });
    expect(landed.status).toBe(303);
    expect(landed.headers.get('location')).toBe(`${app}/`);
  });

  it('gets a connected user back straight after sign-in; an origin not allowed gets /graphql', async () => {
    const { gateway, app } = await frontendGateway();
    await signIn(gateway);
    const { landed: again } = await signInOnly(gateway, 0, returnTo(`${app}/accounts`));
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(`${app}/accounts`);

    // A port just freed can be handed out again at once: never the allowed frontend's own.
    let other = app;
    while (other === app) other = `http://localhost:${await freePort()}`;
    other += '/';
    const { landed: refused } = await signInOnly(gateway, 0, returnTo(other));
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/graphql');
  });

  it('is handed links that return to its own root; without its Origin the links return to /graphql', async () => {
    const { gateway, app } = await frontendGateway();
    const browser = await signIn(gateway);
    const fromApp = await links(gateway, browser, app);
    expect(fromApp.connect.href).toBe(`${gateway.url}/auth/consumer-info${returnTo(`${app}/`)}`);
    expect(fromApp.stepUp.href).toBe(`${gateway.url}/auth/step-up${returnTo(`${app}/`)}`);
    for (const origin of [undefined, new URL(gateway.url).origin]) {
      const own = await links(gateway, browser, origin);
      expect(own.connect.href).toBe(`${gateway.url}/auth/consumer-info?returnTo=%2Fgraphql`);
      expect(own.stepUp.href).toBe(`${gateway.url}/auth/step-up?returnTo=%2Fgraphql`);
    }
    // The handed-out link, followed, ends on the frontend.
    const landed = await connectBank(browser, gateway.url, { query: fromApp.connect.search });
    expect(landed.headers.get('location')).toBe(`${app}/`);
  });
});
