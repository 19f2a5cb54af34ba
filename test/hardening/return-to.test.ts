import { describe, expect, it } from 'vitest';
import type { Browser } from '../support/browser.js';
import { approveConsent, startConnection, startGateway, type TestGateway } from '../support/gateway.js';
import { signInOnly } from '../support/sign-in-steps.js';

/** One signed-in app user per gateway: each form then runs the connection flow, which ends where returnTo says. */
const signedIn = new WeakMap<TestGateway, Browser>();

/** Connects with `returnTo` and returns the callback's status and its Location, resolved as a browser would. */
async function landingAfterSignIn(gateway: TestGateway, returnTo: string): Promise<{ status: number; resolved: URL }> {
  let browser = signedIn.get(gateway);
  if (!browser) {
    browser = (await signInOnly(gateway)).browser;
    signedIn.set(gateway, browser);
  }
  const login = await startConnection(browser, gateway.url, `?${new URLSearchParams({ returnTo })}`);
  expect(login.status).toBe(302);
  const callback = await approveConsent(browser, login.location!);
  const landed = await browser.request(callback.href);
  // The raw header, not the helper's resolution: the WHATWG parser is what a browser applies.
  return { status: landed.status, resolved: new URL(landed.headers.get('location') ?? '', gateway.url) };
}

const controls = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).concat('\u007f');

/** Forms that browsers (or lenient decoders along the way) can turn into another origin. */
const hostile: string[] = [
  ...controls.map((control) => `/${control}/evil.example`),
  ...controls.map((control) => `${control}//evil.example`),
  '//evil.example',
  '///evil.example',
  '/\\evil.example',
  '\\\\evil.example',
  '\\/evil.example',
  '/%5Cevil.example',
  '/%5C%5Cevil.example',
  '/%2F/evil.example',
  '/%2f%2fevil.example',
  '/%252F%252Fevil.example',
  '/%25252F%25252Fevil.example',
  '/%09/evil.example',
  '/%0B/evil.example',
  '/%250A/evil.example',
  '/..//evil.example',
  '/.//evil.example',
  '/%2e%2e//evil.example',
  '/x/../..//evil.example',
  'https://evil.example',
  'http:evil.example',
  'https:/evil.example',
  'javascript:alert(document.cookie)',
  'data:text/html,<script>alert(1)</script>',
  '//evil.example/%2F..',
  '\uFF0F\uFF0Fevil.example',
  '/\uFF0Fevil.example',
  '/\uFF3Cevil.example',
  '/\u2215evil.example',
  '/\u2044evil.example',
  '/\u29F8evil.example',
  'evil.example',
  ' /evil.example',
  '',
];

const kept: Array<[string, string]> = [
  ['/graphql', '/graphql'],
  ['/app/accounts?tab=savings#top', '/app/accounts?tab=savings#top'],
  ['/search?q=caf%C3%A9', '/search?q=caf%C3%A9'],
];

/** A frontend on another origin, as ALLOWED_ORIGINS names it (nothing listens there: only Location is read). */
const FRONTEND = 'http://localhost:5173';

/** Absolute forms aimed past the allowed frontend origin: each must fall back to the gateway's /graphql. */
const hostileAbsolute: string[] = [
  'http://localhost:5174/',
  'https://localhost:5173/',
  'http://127.0.0.1:5173/',
  'http://localhost:51730/',
  'http://localhost:5173.evil.example/',
  'http://localhost:5173@evil.example/',
  'http://evil.example@localhost:5173/',
  'http://user:secret@localhost:5173/',
  'http://localhost:5173\\@evil.example/',
  'http://localhost:5173%2F@evil.example/',
  'http://localhost:5173/\\evil.example',
  'http://localhost:5173//evil.example',
  'http://localhost:5173/..//evil.example',
  'http://localhost:5173/%2F%2Fevil.example',
  'http://localhost:5173/%252F%252Fevil.example',
  'http://localhost:5173/%09/evil.example',
  'http://localhost:5173/\t/evil.example',
  'http://localhost:5173\uFF0F\uFF0Fevil.example',
  'http:/localhost:5173/',
  'http:localhost:5173/',
  'http:\\\\localhost:5173/',
  '//localhost:5173/',
  '///localhost:5173/',
  'HTTP://LOCALHOST:5173/',
  'http://localhost:5173:80/',
  ' http://localhost:5173/',
  'javascript://localhost:5173/%0Aalert(1)',
  'javascript:alert(1)//http://localhost:5173/',
  'data:text/html,http://localhost:5173/',
];

const keptAbsolute: Array<[string, string]> = [
  [`${FRONTEND}/`, `${FRONTEND}/`],
  [FRONTEND, `${FRONTEND}/`],
  [`${FRONTEND}/accounts?tab=savings#top`, `${FRONTEND}/accounts?tab=savings#top`],
];

describe('returnTo after a genuine sign-in', () => {
  it(`never leaves the gateway's origin, for ${hostile.length} hostile forms`, async () => {
    const gateway = await startGateway();
    const origin = new URL(gateway.url).origin;
    const escaped: string[] = [];
    for (const returnTo of hostile) {
      const { status, resolved } = await landingAfterSignIn(gateway, returnTo);
      expect(status, JSON.stringify(returnTo)).toBe(303);
      // Slash look-alikes that no normalisation turns into a slash may stay as an encoded path here.
      const fallsBack = !/^\/[\u2215\u2044\u29F8]evil/.test(returnTo);
      const safe =
        resolved.origin === origin &&
        !resolved.pathname.startsWith('//') &&
        (!fallsBack || resolved.href === `${origin}/graphql`);
      if (!safe) escaped.push(`${JSON.stringify(returnTo)} → ${resolved.href}`);
    }
    expect(escaped).toEqual([]);
  }, 120_000);

  it('keeps a same-site path, query and fragment', async () => {
    const gateway = await startGateway();
    for (const [returnTo, path] of kept) {
      const { status, resolved } = await landingAfterSignIn(gateway, returnTo);
      expect(status).toBe(303);
      expect(resolved.href).toBe(`${gateway.url}${path}`);
    }
  });

  it(`returns to a frontend origin in ALLOWED_ORIGINS only by its exact origin, for ${hostileAbsolute.length} hostile absolute forms`, async () => {
    const gateway = await startGateway({ ALLOWED_ORIGINS: FRONTEND });
    const escaped: string[] = [];
    for (const returnTo of [
      ...hostileAbsolute,
      '//evil.example',
      '/\\evil.example',
      '/%2F/evil.example',
      'https://evil.example',
      'http:evil.example',
      'javascript:alert(document.cookie)',
      'evil.example',
      '',
    ]) {
      const { status, resolved } = await landingAfterSignIn(gateway, returnTo);
      expect(status, JSON.stringify(returnTo)).toBe(303);
      if (resolved.href !== `${gateway.url}/graphql`) escaped.push(`${JSON.stringify(returnTo)} → ${resolved.href}`);
    }
    expect(escaped).toEqual([]);
    for (const [returnTo, href] of keptAbsolute) {
      const { status, resolved } = await landingAfterSignIn(gateway, returnTo);
      expect(status).toBe(303);
      expect(resolved.href).toBe(href);
    }
  }, 120_000);
});
