import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Browser } from './support/browser.js';
import { startConnection, startGateway } from './support/gateway.js';

const VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

describe('the consumer information page', () => {
  it('comes before the platform\u2019s connection flow: value, scope, duration, payments, how to stop, who the platform is', async () => {
    const gateway = await startGateway({
      APP_NAME: 'Kiwi Money',
      PRIVACY_NOTICE_URL: 'https://kiwi.example/privacy',
    });
    const page = await new Browser().request(`${gateway.url}/auth/login?returnTo=%2Fgraphql%3Ftab%3D2`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const text = page.text;
    expect(text).toContain(VIEWPORT);
    expect(text).toContain('Connect your bank to Kiwi Money');
    expect(text).toContain('the platform sandbox'); // the platform's name (on the sandbox)
    expect(text).toContain('enduring access');
    expect(text).toContain('Payments and transfers you start in Kiwi Money');
    expect(text).toContain('revoke all access');
    expect(text).toContain('never sees your bank password');
    expect(text).toContain('href="https://kiwi.example/privacy"');
    expect(text).not.toMatch(/<(script|link)\b|https?:\/\/(?!kiwi\.example)/); // nothing loaded from anywhere
    // Nothing has started yet: no state, no binding cookie, no platform call.
    expect(page.headers.getSetCookie()).toEqual([]);
    // Its button starts the connection, keeping where the user was going.
    const continueHref = /href="(\/auth\/connect\?[^"]+)"/.exec(text)![1]!.replaceAll('&amp;', '&');
    expect(new URL(continueHref, gateway.url).searchParams.get('returnTo')).toBe('/graphql?tab=2');
    const browser = new Browser();
    const connect = await startConnection(browser, gateway.url);
    expect(connect.status).toBe(302);
    expect(connect.location).toContain('/oauth/authorize');
  });

  it('promises no payments for a personal app, and escapes the names it is given', async () => {
    const gateway = await startGateway({ APP_KIND: 'PERSONAL', APP_NAME: 'Me & <b>my</b> money' });
    const text = (await new Browser().request(`${gateway.url}/auth/login`)).text;
    expect(text).not.toContain('Payments and transfers');
    expect(text).toContain('Me &amp; &lt;b&gt;my&lt;/b&gt; money');
    expect(text).not.toContain('<b>my</b>');
  });

  it('uses the operator\u2019s template (CONSUMER_INFO_TEMPLATE), and refuses to start without the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'consumer-info-'));
    const template = join(dir, 'info.html');
    writeFileSync(template, '<h1>Link {{platformName}} to {{appName}}</h1><p>Our own words.</p>');
    const gateway = await startGateway({ CONSUMER_INFO_TEMPLATE: template, APP_NAME: 'Kiwi Money' });
    const text = (await new Browser().request(`${gateway.url}/auth/login`)).text;
    expect(text).toContain('<h1>Link the platform sandbox to Kiwi Money</h1><p>Our own words.</p>');
    expect(text).toContain('Continue to the platform sandbox');
    await expect(startGateway({ CONSUMER_INFO_TEMPLATE: join(dir, 'missing.html') })).rejects.toThrow(
      /CONSUMER_INFO_TEMPLATE .*missing\.html cannot be read/,
    );
  });
});
