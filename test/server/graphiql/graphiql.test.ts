import { describe, expect, it } from 'vitest';
import { Browser } from '../../support/browser.js';
import { signIn, startGateway } from '../../support/gateway.js';

const HTML = { accept: 'text/html,application/xhtml+xml' };

describe('GraphiQL', () => {
  it('offers a signed-out visitor the sign-in link', async () => {
    const gateway = await startGateway();
    const page = await new Browser().request(`${gateway.url}/graphql`, { headers: HTML });
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/auth/login?returnTo=%2Fgraphql"');
    expect(page.text).not.toContain('graphiql.js');
  });

  it('serves GraphiQL to a signed-in user with every asset from the gateway itself', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const page = await browser.request(`${gateway.url}/graphql`, { headers: HTML });

    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(5);
    for (const asset of assets) {
      expect(asset.startsWith('/graphiql/assets/')).toBe(true);
      const response = await browser.request(`${gateway.url}${asset}`);
      expect(response.status, asset).toBe(200);
      expect(response.text.length, asset).toBeGreaterThan(100);
    }
    const init = await browser.request(`${gateway.url}/graphiql/assets/init.js`);
    expect(init.text).toContain("window.location.origin + '/graphql'");
  });

  it('serves only the fixed list of assets', async () => {
    const gateway = await startGateway();
    const response = await new Browser().request(`${gateway.url}/graphiql/assets/..%2F..%2Fpackage.json`);
    expect(response.status).toBe(404);
  });

  it('can be turned off', async () => {
    const gateway = await startGateway({ GRAPHIQL_ENABLED: 'false' });
    const browser = await signIn(gateway);
    const page = await browser.request(`${gateway.url}/graphql`, { headers: HTML });
    expect(page.text).not.toContain('graphiql');
    expect((await browser.request(`${gateway.url}/graphiql/assets/graphiql.js`)).status).toBe(404);
    // A browser opening the address (as after a sign-in that returns there) is told what to do, in
    // HTML, instead of meeting the CSRF refusal's JSON; a GraphQL GET is still answered as one.
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('GRAPHIQL_ENABLED=true');
    expect(page.text).toContain('go back to your app');
    const query = await browser.request(`${gateway.url}/graphql?query=%7B__typename%7D`, { headers: HTML });
    expect(query.headers.get('content-type')).not.toContain('text/html');
  });
});
