import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { PERSONAL_FINANCE_GROUPS } from '../../src/data/categories.js';
import { MERCHANTS } from '../../src/data/merchants.js';
import { createSandbox, type Sandbox } from '../../src/sandbox.js';
import { track } from '../support/leftovers.js';

async function startSandbox(): Promise<Sandbox> {
  const sandbox = createSandbox({ logger: createLogger({ level: 'silent' }), headerPrefix: 'X-Service' });
  await sandbox.start();
  track(() => sandbox.stop());
  return sandbox;
}

interface Item {
  id?: string;
  query: string;
  results: Array<{
    confidence: number;
    category: { _id: string; name: string; groups: Record<string, { _id: string; name: string }> };
    merchant?: { _id: string; name: string; logo: string; website?: string };
  }>;
}

async function search(sandbox: Sandbox, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${sandbox.enrichmentUrl}/v1/search`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${sandbox.credentials.enrichmentKey}`,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { success: boolean; items: Item[]; message?: string },
  };
}

describe('sandbox enrichment search', () => {
  it('knows at least 60 New Zealand merchants across all ten personal_finance groups', async () => {
    const sandbox = await startSandbox();
    expect(MERCHANTS.length).toBeGreaterThanOrEqual(60);
    const { body } = await search(
      sandbox,
      MERCHANTS.map((merchant) => ({ id: merchant.slug, description: merchant.sample })),
    );
    const groups = new Set<string>();
    for (const [index, item] of body.items.entries()) {
      const merchant = MERCHANTS[index]!;
      expect(item.id).toBe(merchant.slug);
      const best = item.results[0];
      expect(best?.merchant?.name, merchant.sample).toBe(merchant.name);
      expect(best!.confidence).toBeGreaterThanOrEqual(0.5);
      expect(best!.confidence).toBeLessThanOrEqual(0.99);
      expect(best!.merchant!.logo).toMatch(/^http.+\.png$/);
      expect(best!.category._id).toMatch(/^nzfcc_/);
      groups.add(best!.category.groups.personal_finance!.name);
    }
    expect([...groups].sort()).toEqual(Object.keys(PERSONAL_FINANCE_GROUPS).sort());
  });

  it('returns an empty results array when nothing matches, and a category alone when only that is known', async () => {
    const sandbox = await startSandbox();
    const { body } = await search(sandbox, [
      { description: 'XQZW 9981' },
      { description: 'CITY CENTRE PARKING BUILDING' },
    ]);
    expect(body.items[0]).toEqual({ query: 'XQZW 9981', results: [] });
    expect(body.items[1]!.results[0]).toMatchObject({ category: { name: 'Parking services' } });
    expect(body.items[1]!.results[0]!.merchant).toBeUndefined();
  });

  it('gives overseas descriptions only limited support', async () => {
    const sandbox = await startSandbox();
    const { body } = await search(sandbox, [
      { description: 'NETFLIX.COM LOS GATOS USD 15.49' },
      { description: 'WOOLWORTHS SYDNEY AU' },
    ]);
    expect(body.items[0]!.results[0]!.merchant!.name).toBe('Netflix');
    expect(body.items[0]!.results[0]!.confidence).toBeLessThanOrEqual(0.75);
    expect(body.items[1]!.results).toEqual([]);
  });

  it('omits website when a merchant has none and uses the placeholder logo when it has no logo', async () => {
    const sandbox = await startSandbox();
    const { body } = await search(sandbox, [{ description: 'JUST CUTS WESTGATE' }]);
    expect(body.items[0]!.results[0]!.merchant!.logo).toMatch(/\/logos\/merchants\/default\.png$/);
    const logo = await fetch(body.items[0]!.results[0]!.merchant!.logo);
    expect(logo.headers.get('content-type')).toBe('image/png');
  });

  it('accepts only its own key: app credentials and wrong keys are refused', async () => {
    const sandbox = await startSandbox();
    const basic = Buffer.from(`${sandbox.credentials.appToken}:${sandbox.credentials.appSecret}`).toString('base64');
    expect((await search(sandbox, [{ description: 'KFC' }], { authorization: `Basic ${basic}` })).status).toBe(401);
    expect(
      (await search(sandbox, [{ description: 'KFC' }], { 'x-service-id': sandbox.credentials.appToken })).status,
    ).toBe(401);
    expect(
      (await search(sandbox, [{ description: 'KFC' }], { authorization: 'Bearer genie_token_wrong' })).status,
    ).toBe(401);
    expect((await search(sandbox, [{ description: 'KFC' }])).status).toBe(200);
  });

  it('rejects malformed bodies with the platform error envelope', async () => {
    const sandbox = await startSandbox();
    for (const body of [
      { description: 'not an array' },
      [],
      [{ description: '' }],
      [{ description: 'KFC', _connection: 'acc_1' }],
    ]) {
      const response = await search(sandbox, body);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ success: false, message: expect.any(String) });
    }
  });

  it('holds any number of requests under a delay fault without a listener-leak warning', async () => {
    const sandbox = await startSandbox();
    sandbox.setEnrichmentFault({ delayMs: 50 });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const answers = await Promise.all(Array.from({ length: 12 }, () => search(sandbox, [{ description: 'KFC' }])));
      expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(200));
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});

describe('sandbox token endpoint', () => {
  async function token(sandbox: Sandbox, body: Record<string, unknown>) {
    const response = await fetch(`${sandbox.coreUrl}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function issueCode(sandbox: Sandbox): Promise<{ code: string; redirectUri: string }> {
    const redirectUri = 'http://app.test/auth/callback';
    sandbox.registerRedirectUri(redirectUri);
    const consent = await fetch(
      `${sandbox.coreUrl}/oauth/authorize?response_type=code&client_id=${sandbox.credentials.appToken}&redirect_uri=${encodeURIComponent(redirectUri)}&scope=ENDURING_CONSENT&state=s1`,
    );
    const user = /name="user" value="([^"]+)"/.exec(await consent.text())![1]!;
    const form = new URLSearchParams({
      response_type: 'code',
      client_id: sandbox.credentials.appToken,
      redirect_uri: redirectUri,
      scope: 'ENDURING_CONSENT',
      state: 's1',
      user,
      decision: 'allow',
    });
    const approved = await fetch(`${sandbox.coreUrl}/oauth/authorize`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    const location = new URL(approved.headers.get('location')!);
    expect(location.searchParams.get('state')).toBe('s1');
    return { code: location.searchParams.get('code')!, redirectUri };
  }

  it('exchanges a code once; a replay is invalid_grant and revokes the token it bought', async () => {
    const sandbox = await startSandbox();
    const { code, redirectUri } = await issueCode(sandbox);
    const creds = {
      grant_type: 'authorization_code',
      client_id: sandbox.credentials.appToken,
      client_secret: sandbox.credentials.appSecret,
      redirect_uri: redirectUri,
    };
    const first = await token(sandbox, { ...creds, code });
    expect(first).toMatchObject({
      status: 200,
      body: {
        success: true,
        token_type: 'bearer',
        scope: 'ENDURING_CONSENT',
        access_token: expect.stringMatching(/^user_token_/),
      },
    });

    expect(await token(sandbox, { ...creds, code })).toEqual({
      status: 400,
      body: { success: false, error: 'invalid_grant' },
    });
    const me = await fetch(`${sandbox.coreUrl}/v1/me`, {
      headers: {
        authorization: `Bearer ${first.body.access_token as string}`,
        'x-service-id': sandbox.credentials.appToken,
      },
    });
    expect(me.status).toBe(403);
  });

  it('answers the platform OAuth errors', async () => {
    const sandbox = await startSandbox();
    const { code, redirectUri } = await issueCode(sandbox);
    const creds = {
      grant_type: 'authorization_code',
      client_id: sandbox.credentials.appToken,
      client_secret: sandbox.credentials.appSecret,
      redirect_uri: redirectUri,
      code,
    };
    expect((await token(sandbox, { ...creds, grant_type: 'password' })).body.error).toBe('unsupported_grant_type');
    expect((await token(sandbox, { ...creds, client_secret: 'wrong-secret' })).body.error).toBe('invalid_client');
    expect((await token(sandbox, { ...creds, code: 'unknown' })).body.error).toBe('invalid_grant');
  });

  it('requires both the bearer user token and the app id header on /v1/me', async () => {
    const sandbox = await startSandbox();
    const { code, redirectUri } = await issueCode(sandbox);
    const { body } = await token(sandbox, {
      grant_type: 'authorization_code',
      client_id: sandbox.credentials.appToken,
      client_secret: sandbox.credentials.appSecret,
      redirect_uri: redirectUri,
      code,
    });
    const bearer = `Bearer ${body.access_token as string}`;
    expect((await fetch(`${sandbox.coreUrl}/v1/me`, { headers: { authorization: bearer } })).status).toBe(401);
    expect(
      (await fetch(`${sandbox.coreUrl}/v1/me`, { headers: { 'x-service-id': sandbox.credentials.appToken } })).status,
    ).toBe(401);
    const ok = await fetch(`${sandbox.coreUrl}/v1/me`, {
      headers: { authorization: bearer, 'x-service-id': sandbox.credentials.appToken },
    });
    expect(await ok.json()).toMatchObject({ success: true, item: { _id: expect.stringMatching(/^user_/) } });
  });

  it('refuses an unregistered redirect_uri with a page, never a redirect', async () => {
    const sandbox = await startSandbox();
    const response = await fetch(
      `${sandbox.coreUrl}/oauth/authorize?response_type=code&client_id=${sandbox.credentials.appToken}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}&scope=ENDURING_CONSENT&state=s`,
      { redirect: 'manual' },
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });
});
