import { describe, expect, it } from 'vitest';
import { forgeJwt } from '@open-finance-gateway/sandbox/testing';
import { Browser } from '../support/browser.js';
import {
  approveConsent,
  appUserId,
  MFA_DEMO_USERS,
  signInToApp,
  startGateway,
  type TestGateway,
} from '../support/gateway.js';
import { bearerRequest } from '../support/native-app.js';
import { overHttp } from '../support/transports.js';

const RETURN_URIS = 'nz.example.app:/connected,https://app.example.nz/connected,http://127.0.0.1/connected';
const START = `mutation ($returnUri: String!, $state: String!) { startBankConnection(returnUri: $returnUri, state: $state) { url expiresAt } }`;

/** A gateway with a clock the test moves, and the app's signed-in user (not yet connected). */
async function phoneSetup() {
  let offset = 0;
  const gateway = await startGateway({ APP_RETURN_URIS: RETURN_URIS }, { clock: () => Date.now() + offset });
  const app = new Browser();
  const landed = await signInToApp(app, gateway.sandbox, gateway.url, MFA_DEMO_USERS[0]!);
  expect(landed.location).toContain('/auth/consumer-info'); // signed in, no bank connection yet
  return { gateway, app, later: (ms: number) => (offset += ms) };
}

async function startConnection(gateway: TestGateway, app: Browser, returnUri: string, state = 'app-state-42') {
  const answer = await overHttp(gateway, app, START, { returnUri, state });
  return answer as { data: { startBankConnection: { url: string; expiresAt: string } } | null; errors?: unknown[] };
}

/** What the system browser does with the URL: a browser with none of the gateway's cookies. */
async function openInSystemBrowser(url: string) {
  const browser = new Browser();
  const page = await browser.request(url);
  const continueHref = /class="button" href="([^"]+)"/.exec(page.text)?.[1]?.replaceAll('&amp;', '&');
  return { browser, page, continueHref };
}

/** The whole phone flow for a fresh URL: where the browser was sent at the end. */
async function connectThroughUrl(gateway: TestGateway, app: Browser): Promise<string | undefined> {
  const { url } = (await startConnection(gateway, app, 'nz.example.app:/connected')).data!.startBankConnection;
  const { browser, continueHref } = await openInSystemBrowser(url);
  const back = await approveConsent(browser, continueHref!);
  return (await browser.request(back.href)).location;
}

const accountStatuses = async (gateway: TestGateway, app: Browser) =>
  ((await overHttp(gateway, app, '{ accounts { name status } }')).data as { accounts: Array<{ status: string }> })
    .accounts;

describe('the bank connection from a phone', () => {
  it('connects through a single-use URL that needs no cookie, and returns to the app with only the outcome and its state', async () => {
    const { gateway, app } = await phoneSetup();
    const started = await startConnection(gateway, app, 'nz.example.app:/connected');
    expect(started.errors).toBeUndefined();
    const { url, expiresAt } = started.data!.startBankConnection;
    expect(new Date(expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(5 * 60_000 + 1_000);

    const { browser, page, continueHref } = await openInSystemBrowser(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Continue to'); // the consumer information page first
    const back = await approveConsent(browser, continueHref!);
    const callback = await browser.request(back.href);
    expect(callback.status).toBe(303);
    const returned = new URL(callback.location!);
    expect(`${returned.protocol}${returned.pathname}`).toBe('nz.example.app:/connected');
    expect([...returned.searchParams]).toEqual([
      ['outcome', 'connected'],
      ['state', 'app-state-42'],
    ]);

    // The app's session now reaches the bank.
    const accounts = await overHttp(gateway, app, '{ accounts { id } }');
    expect(accounts.errors).toBeUndefined();
    expect((accounts.data as { accounts: unknown[] }).accounts.length).toBeGreaterThan(0);
  });

  it('returns `refused` to the app when the user declines at the platform, and on "Not now"', async () => {
    const { gateway, app } = await phoneSetup();
    const { url } = (await startConnection(gateway, app, 'https://app.example.nz/connected')).data!.startBankConnection;
    const { browser, page, continueHref } = await openInSystemBrowser(url);
    expect(page.text).toContain('href="https://app.example.nz/connected?outcome=refused&amp;state=app-state-42"');
    const back = await approveConsent(browser, continueHref!, { decision: 'deny' });
    const callback = await browser.request(back.href);
    expect(callback.location).toBe('https://app.example.nz/connected?outcome=refused&state=app-state-42');
  });

  it('works for a native app signed in with its access token (no cookie anywhere)', async () => {
    const { gateway } = await phoneSetup();
    const now = Math.floor(Date.now() / 1000);
    const token = forgeJwt({
      iss: gateway.sandbox.identity.issuer,
      aud: gateway.url,
      sub: appUserId(gateway, 0),
      client_id: gateway.sandbox.identity.nativeClientId,
      iat: now - 5,
      exp: now + 600,
      auth_time: now - 5,
      amr: ['pwd', 'otp'],
      sid: 'family-phone',
    });
    const started = await bearerRequest(gateway.url, token, START, {
      variables: { returnUri: 'nz.example.app:/connected', state: 'bearer-state' },
    });
    expect(started.errors).toBeUndefined();
    const { url } = started.data!.startBankConnection as { url: string };
    const { browser, continueHref } = await openInSystemBrowser(url);
    const back = await approveConsent(browser, continueHref!);
    expect((await browser.request(back.href)).location).toBe(
      'nz.example.app:/connected?outcome=connected&state=bearer-state',
    );
    const accounts = await bearerRequest(gateway.url, token, '{ accounts { id } }');
    expect(accounts.errors).toBeUndefined();
    expect((accounts.data!.accounts as unknown[]).length).toBeGreaterThan(0);
  });

  it('reconnects an INACTIVE account the same way', async () => {
    const { gateway, app } = await phoneSetup();
    expect(await connectThroughUrl(gateway, app)).toBe(
      'nz.example.app:/connected?outcome=connected&state=app-state-42',
    );
    expect((await accountStatuses(gateway, app)).filter((account) => account.status === 'INACTIVE')).not.toEqual([]);
    expect(await connectThroughUrl(gateway, app)).toBe(
      'nz.example.app:/connected?outcome=connected&state=app-state-42',
    );
    expect((await accountStatuses(gateway, app)).filter((account) => account.status === 'INACTIVE')).toEqual([]);
  });

  it('takes a loopback return URI on any port (RFC 8252)', async () => {
    const { gateway, app } = await phoneSetup();
    const started = await startConnection(gateway, app, 'http://127.0.0.1:53682/connected');
    expect(started.errors).toBeUndefined();
  });

  it('refuses a connection URL used twice with CONNECTION_URL_INVALID, sending nothing to the platform', async () => {
    const { gateway, app } = await phoneSetup();
    const { url } = (await startConnection(gateway, app, 'nz.example.app:/connected')).data!.startBankConnection;
    expect((await openInSystemBrowser(url)).page.status).toBe(200);
    const before = gateway.sandbox.requests().length;
    const again = await openInSystemBrowser(url);
    expect(again.page.status).toBe(400);
    expect(again.page.text).toContain('CONNECTION_URL_INVALID');
    expect(again.continueHref).toBeUndefined();
    expect(gateway.sandbox.requests()).toHaveLength(before);
  });

  it('refuses a connection URL after it expired with CONNECTION_URL_EXPIRED, sending nothing to the platform', async () => {
    const { gateway, app, later } = await phoneSetup();
    const { url } = (await startConnection(gateway, app, 'nz.example.app:/connected')).data!.startBankConnection;
    later(5 * 60_000 + 1);
    const before = gateway.sandbox.requests().length;
    const opened = await openInSystemBrowser(url);
    expect(opened.page.status).toBe(410);
    expect(opened.page.text).toContain('CONNECTION_URL_EXPIRED');
    expect(opened.continueHref).toBeUndefined();
    expect(gateway.sandbox.requests()).toHaveLength(before);
  });

  it('refuses a return URI not on APP_RETURN_URIS with BAD_USER_INPUT, and issues no URL', async () => {
    const { gateway, app } = await phoneSetup();
    const before = gateway.sandbox.requests().length;
    for (const returnUri of [
      'evil.example:/connected',
      'https://app.example.nz/connected/../elsewhere',
      'https://app.example.nz/connected#fragment',
      'http://localhost:8080/connected',
      'javascript:alert(1)',
    ]) {
      const refused = await startConnection(gateway, app, returnUri);
      expect(refused.data, returnUri).toBeNull();
      expect(refused.errors, returnUri).toEqual([{ code: 'BAD_USER_INPUT', path: ['startBankConnection'] }]);
    }
    const badState = await startConnection(gateway, app, 'nz.example.app:/connected', 'x'.repeat(513));
    expect(badState.errors).toEqual([{ code: 'BAD_USER_INPUT', path: ['startBankConnection'] }]);
    expect(gateway.sandbox.requests()).toHaveLength(before);
  });

  it('a grant is no OAuth state: the platform callback refuses it', async () => {
    const { gateway, app } = await phoneSetup();
    const { url } = (await startConnection(gateway, app, 'nz.example.app:/connected')).data!.startBankConnection;
    const grant = new URL(url).searchParams.get('grant')!;
    const browser = new Browser();
    const callback = await browser.request(`${gateway.url}/auth/callback?state=${grant}&code=stolen`);
    expect(callback.status).toBe(400);
    expect(callback.location).toBeUndefined();
  });
});
