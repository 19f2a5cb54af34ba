import { print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { MeDocument, RefreshDocument } from '../__generated__/graphql.js';
import type { Browser } from '../support/browser.js';
import { execute, signIn, startGateway, type TestGateway } from '../support/gateway.js';

function refreshes(gateway: TestGateway) {
  return gateway.sandbox
    .requests({ service: 'core', method: 'POST' })
    .filter((request) => request.path.startsWith('/v1/refresh'));
}

async function refreshFrom(gateway: TestGateway, browser: Browser, origin: string | undefined) {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(origin === undefined ? {} : { origin }) },
    body: JSON.stringify({ query: print(RefreshDocument), variables: {} }),
  });
  return {
    status: response.status,
    body: JSON.parse(response.text) as { errors?: Array<{ extensions?: Record<string, unknown> }> },
  };
}

describe('state-changing requests from other origins', () => {
  it('refuses a mutation whose Origin is foreign or "null" before any upstream call', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    for (const origin of [
      'null',
      'https://evil.example',
      `${gateway.url}.evil.example`,
      'http://localhost',
      gateway.url.replace('http:', 'https:'),
    ]) {
      const refused = await refreshFrom(gateway, browser, origin);
      expect(refused.status, origin).toBe(403);
      expect(refused.body.errors?.[0]?.extensions).toEqual({ code: 'FORBIDDEN', reason: 'ORIGIN_NOT_ALLOWED' });
    }
    expect(refreshes(gateway)).toHaveLength(0);
    const logout = await browser.request(`${gateway.url}/auth/logout`, { method: 'POST', headers: { origin: 'null' } });
    expect(logout.status).toBe(403);
    expect((await execute(gateway, browser, MeDocument)).status).toBe(200);
  });

  it('lets a mutation with no Origin, the public origin or an allowed origin through', async () => {
    const gateway = await startGateway({ ALLOWED_ORIGINS: 'https://app.example.nz' });
    const browser = await signIn(gateway);
    for (const origin of [undefined, gateway.url, 'https://app.example.nz']) {
      gateway.sandbox.clearRefreshLimit((await execute(gateway, browser, MeDocument)).data!.me.id);
      const answered = await refreshFrom(gateway, browser, origin);
      expect(answered.status, String(origin)).toBe(200);
      expect(answered.body.errors, String(origin)).toBeUndefined();
    }
    expect(refreshes(gateway)).toHaveLength(3);
  });
});
