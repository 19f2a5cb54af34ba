import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Browser } from '../support/browser.js';
import { MFA_DEMO_USERS, signInToApp, startConnection, startGateway, type TestGateway } from '../support/gateway.js';

/** A signed-in app user who has not connected their bank: the one the page is for. */
async function signedIn(gateway: TestGateway): Promise<Browser> {
  const browser = new Browser();
  await signInToApp(browser, gateway.sandbox, gateway.url, MFA_DEMO_USERS[0]!);
  return browser;
}

/** Every app name a page names (`data-app-name`). */
const appNames = (html: string) => [...html.matchAll(/data-app-name>([^<]+)</g)].map((match) => match[1]);

const VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

describe('the consumer information page', () => {
  it('comes before the platform\u2019s connection flow: value, scope, duration, payments, how to stop, who the platform is', async () => {
    const gateway = await startGateway({
      APP_NAME: 'Kiwi Money',
      PRIVACY_NOTICE_URL: 'https://kiwi.example/privacy',
    });
    const browser = await signedIn(gateway);
    const page = await browser.request(`${gateway.url}/auth/consumer-info?returnTo=%2Fgraphql%3Ftab%3D2`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const text = page.text;
    expect(text).toContain(VIEWPORT);
    expect(text).toContain('Connect your bank to Kiwi Money');
    expect(text).toContain('the platform sandbox'); // the platform's name (on the sandbox)
    // A sentence starts with a capital, and the platform is not said to be itself.
    expect(text).toContain('The platform sandbox connects Kiwi Money to your bank');
    expect(text).not.toMatch(/\. the |is the open finance platform/);
    expect(text).toContain('enduring access');
    expect(text).toContain('Payments and transfers you start in Kiwi Money');
    expect(text).toContain('revoke all access');
    expect(text).toContain('never sees your bank password');
    expect(text).toContain('href="https://kiwi.example/privacy"');
    expect(text).not.toMatch(/<(script|link)\b|https?:\/\/(?!kiwi\.example)/); // nothing loaded from anywhere
    // Nothing has started yet: no state, no cookie, no platform call.
    expect(page.headers.getSetCookie()).toEqual([]);
    expect(gateway.sandbox.requests({ service: 'core' })).toEqual([]);
    // Its button starts the connection, keeping where the user was going.
    const continueHref = /href="(\/auth\/connect\?[^"]+)"/.exec(text)![1]!.replaceAll('&amp;', '&');
    expect(new URL(continueHref, gateway.url).searchParams.get('returnTo')).toBe('/graphql?tab=2');
    const connect = await startConnection(browser, gateway.url);
    expect(connect.status).toBe(302);
    expect(connect.location).toContain('/oauth/authorize');
  });

  it('names one app everywhere the user goes: the sandbox sign-in page, this page and its header, the consent page', async () => {
    const gateway = await startGateway({ APP_NAME: 'Kete' });
    const browser = new Browser();
    const login = await browser.request(`${gateway.url}/auth/login`);
    const signInPage = await browser.request((await browser.request(login.location!)).location!);
    expect(appNames(signInPage.text)).toEqual(['Kete']);
    expect(signInPage.text).toContain('Sign in to <span data-app-name>Kete</span>');

    const signedInBrowser = await signedIn(gateway);
    const info = await signedInBrowser.request(`${gateway.url}/auth/consumer-info`);
    // The header is the app's, not the platform's (whose name is said in the text and on the button).
    expect(/<p class="brand"[^>]*>(?:<svg[\s\S]*?<\/svg>)?([^<]*)<\/p>/.exec(info.text)?.[1]).toBe('Kete');
    expect(info.text).toContain('Connect your bank to Kete');
    const consent = await signedInBrowser.request((await startConnection(signedInBrowser, gateway.url)).location!);
    expect(consent.text).toContain('Connect your accounts to Kete');
    expect(appNames(consent.text)).toEqual(['Kete']);
    expect(consent.text).not.toContain('The app is asking');
  });

  it('is shown to signed-in users only: anyone else signs in first, and comes back to it', async () => {
    const gateway = await startGateway();
    const anonymous = await new Browser().request(`${gateway.url}/auth/consumer-info?returnTo=%2Fapp`);
    expect(anonymous.status).toBe(302);
    expect(anonymous.location).toBe(
      `${gateway.url}/auth/login?returnTo=${encodeURIComponent('/auth/consumer-info?returnTo=%2Fapp')}`,
    );
  });

  it('promises no payments for a personal app, and escapes the names it is given', async () => {
    const gateway = await startGateway({ APP_KIND: 'PERSONAL', APP_NAME: 'Me & <b>my</b> money' });
    const text = (await (await signedIn(gateway)).request(`${gateway.url}/auth/consumer-info`)).text;
    expect(text).not.toContain('Payments and transfers');
    expect(text).toContain('Me &amp; &lt;b&gt;my&lt;/b&gt; money');
    expect(text).not.toContain('<b>my</b>');
  });

  it('uses the operator\u2019s template (CONSUMER_INFO_TEMPLATE), and refuses to start without the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'consumer-info-'));
    const template = join(dir, 'info.html');
    writeFileSync(template, '<h1>Link {{platformName}} to {{appName}}</h1><p>Our own words.</p>');
    const gateway = await startGateway({ CONSUMER_INFO_TEMPLATE: template, APP_NAME: 'Kiwi Money' });
    const text = (await (await signedIn(gateway)).request(`${gateway.url}/auth/consumer-info`)).text;
    expect(text).toContain('<h1>Link the platform sandbox to Kiwi Money</h1><p>Our own words.</p>');
    expect(text).toContain('Continue to the platform sandbox');
    await expect(startGateway({ CONSUMER_INFO_TEMPLATE: join(dir, 'missing.html') })).rejects.toThrow(
      /CONSUMER_INFO_TEMPLATE .*missing\.html cannot be read/,
    );
  });
});
